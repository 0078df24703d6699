#include "rejected_lines.h"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "atomic_file.h"

namespace neardup::rejected_lines {

static_assert(std::endian::native == std::endian::little,
              "rejection files are little-endian; add byte swapping for this platform");

namespace {

constexpr char kMagic[8] = {'N', 'D', 'W', 'R', 'E', 'J', '0', '1'};

}  // namespace

std::string fileName(int64_t datasetId) {
    return "rejections-" + std::to_string(datasetId) + ".bin";
}

void write(const std::string& path, const std::vector<RejectedLine>& lines) {
    try {
        AtomicFile file(path);
        std::string header(kMagic, sizeof kMagic);
        const uint64_t n = lines.size();
        header.append(reinterpret_cast<const char*>(&n), sizeof n);
        file.write(header);
        file.write(lines.data(), lines.size() * sizeof(RejectedLine));
        file.commit();
    } catch (const std::runtime_error& e) {
        throw StoreError(e.what());
    }
}

bool load(ProjectStore& store, const DatasetRecord& dataset, std::vector<RejectedLine>& out) {
    out.clear();
    uint64_t expected = 0;
    for (const RejectionCount& r : dataset.rejections)
        expected += r.count;
    if (expected == 0) return true;
    const std::string& project = store.path();
    if (project.empty() || project == ":memory:") return false;
    const std::string path = project + ".d/" + fileName(dataset.id);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char header[16];
    bool ok = ::read(fd, header, sizeof header) == static_cast<ssize_t>(sizeof header) &&
              std::memcmp(header, kMagic, sizeof kMagic) == 0;
    uint64_t n = 0;
    if (ok) std::memcpy(&n, header + 8, sizeof n);
    ok = ok && n == expected;
    if (ok) {
        out.resize(static_cast<std::size_t>(n));
        auto* p = reinterpret_cast<char*>(out.data());
        std::size_t left = out.size() * sizeof(RejectedLine);
        while (ok && left > 0) {
            const ssize_t r = ::read(fd, p, left);
            if (r < 0 && errno == EINTR) continue;
            ok = r > 0;
            if (ok) {
                p += r;
                left -= static_cast<std::size_t>(r);
            }
        }
    }
    ::close(fd);
    // The per-reason counts must match, and every entry must point into the dataset.
    uint64_t counts[kRejectReasonCount] = {};
    for (const RejectedLine& r : out) {
        if (!ok) break;
        ok = r.reason < kRejectReasonCount && r.file < dataset.files.size();
        if (ok) ++counts[r.reason];
    }
    for (const RejectionCount& r : dataset.rejections) {
        if (!ok) break;
        for (int k = 0; k < kRejectReasonCount; ++k)
            if (r.reason == toString(static_cast<RejectReason>(k))) ok = counts[k] == r.count;
    }
    if (!ok) out.clear();
    return ok;
}

}  // namespace neardup::rejected_lines
