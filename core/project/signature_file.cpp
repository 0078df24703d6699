#include "signature_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "atomic_file.h"
#include "cancelled.h"
#include "digest.h"
#include "project_store.h"
#include "unique_fd.h"

namespace neardup::sigfile {

// Values and digests are written straight from memory; a big-endian port would swap here.
static_assert(std::endian::native == std::endian::little,
              "signature files are little-endian; add byte swapping for this platform");

namespace {

constexpr char kMagic[8] = {'N', 'D', 'W', 'S', 'I', 'G', '0', '1'};
constexpr uint32_t kFormatVersion = 1;
constexpr std::size_t kFixedHeader = 28;  // magic, version, hashes, documents, key length

void put32(std::string& s, uint32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);
    s.append(b, 4);
}

void put64(std::string& s, uint64_t v) {
    char b[8];
    std::memcpy(b, &v, 8);
    s.append(b, 8);
}

uint32_t get32(const unsigned char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

uint64_t get64(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

std::string header(const std::string& cacheKey, const SignatureMatrix& shape) {
    std::string h(kMagic, sizeof kMagic);
    put32(h, kFormatVersion);
    put32(h, static_cast<uint32_t>(shape.hashes));
    put64(h, shape.size());
    put32(h, static_cast<uint32_t>(cacheKey.size()));
    h += cacheKey;
    return h;
}

std::size_t valueBytes(uint64_t documents, int hashes) {
    return static_cast<std::size_t>(documents) * static_cast<std::size_t>(hashes) *
           sizeof(uint32_t);
}

std::size_t digestBytes(uint64_t documents) {
    return static_cast<std::size_t>(documents) * sizeof(uint64_t);
}

void checkShape(const SignatureMatrix& sig) {
    if (sig.hashes <= 0 || sig.values.size() != sig.size() * static_cast<std::size_t>(sig.hashes) ||
        sig.eligible.size() != sig.size())
        throw StoreError("project store: signature matrix has inconsistent shape");
}

// Returns the full header length when the fixed part and the key match what is expected,
// else 0. `available` bytes at `p` must cover at least the fixed part.
std::size_t checkHeader(const unsigned char* p, std::size_t available, const std::string& key,
                        uint64_t documents, int hashes) {
    if (available < kFixedHeader) return 0;
    if (std::memcmp(p, kMagic, sizeof kMagic) != 0) return 0;
    if (get32(p + 8) != kFormatVersion) return 0;
    if (get32(p + 12) != static_cast<uint32_t>(hashes)) return 0;
    if (get64(p + 16) != documents) return 0;
    if (get32(p + 24) != key.size()) return 0;
    if (available < kFixedHeader + key.size()) return 0;
    if (std::memcmp(p + kFixedHeader, key.data(), key.size()) != 0) return 0;
    return kFixedHeader + key.size();
}

bool readAll(int fd, void* data, std::size_t bytes) {
    auto* p = static_cast<char*>(data);
    while (bytes > 0) {
        const std::size_t chunk = std::min<std::size_t>(bytes, std::size_t{1} << 30);
        const ssize_t n = ::read(fd, p, chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        bytes -= static_cast<std::size_t>(n);
    }
    return true;
}

// The cache file at `path` opened and its header checked against the key, the document and
// hash counts and the file's size (header + values + digests + eligibility bytes); its header's
// length in `headerBytes`, the descriptor just past it. An invalid descriptor when any check
// fails (a missing or foreign file is a cache miss, not an error).
UniqueFd openChecked(const std::string& path, const std::string& cacheKey, uint64_t documents,
                     int hashes, std::size_t& headerBytes) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return fd;
    struct stat st {};
    std::string h(kFixedHeader + cacheKey.size(), '\0');
    if (::fstat(fd.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) < h.size() ||
        !readAll(fd.get(), h.data(), h.size()))
        return UniqueFd();
    headerBytes = checkHeader(reinterpret_cast<const unsigned char*>(h.data()), h.size(), cacheKey,
                              documents, hashes);
    if (headerBytes == 0 ||
        static_cast<uint64_t>(st.st_size) !=
            headerBytes + valueBytes(documents, hashes) + digestBytes(documents) + documents)
        return UniqueFd();
    return fd;
}

}  // namespace

uint64_t valuesOffset(const std::string& cacheKey) {
    return kFixedHeader + cacheKey.size();
}

uint64_t completeInPlace(const std::string& cacheKey, const SignatureMatrix& shape,
                         const WriteAt& writeAt) {
    if (shape.hashes <= 0 || shape.eligible.size() != shape.size())
        throw StoreError("project store: signature matrix has inconsistent shape");
    const std::string h = header(cacheKey, shape);
    writeAt(0, h.data(), h.size());
    const uint64_t digestsAt = h.size() + valueBytes(shape.size(), shape.hashes);
    writeAt(digestsAt, shape.digests.data(), digestBytes(shape.size()));
    writeAt(digestsAt + digestBytes(shape.size()), shape.eligible.data(), shape.size());
    return digestsAt + digestBytes(shape.size()) + shape.size();
}

std::string fileName(int64_t datasetId, const std::string& cacheKey) {
    // A digest that is stable across builds and platforms, unlike std::hash.
    return fmt::format("signatures-{}-{:016x}.bin", datasetId, fnv1a(cacheKey));
}

void write(const std::string& path, const std::string& cacheKey, const SignatureMatrix& sig) {
    checkShape(sig);
    try {
        AtomicFile file(path);
        file.write(header(cacheKey, sig));
        file.write(sig.values.data(), valueBytes(sig.size(), sig.hashes));
        file.write(sig.digests.data(), digestBytes(sig.size()));
        file.write(sig.eligible.data(), sig.size());
        // A row refers to the file by name: the name must survive a power loss too.
        file.commitDurably();
    } catch (const std::runtime_error& e) {
        throw StoreError(std::string("project store: ") + e.what());
    }
}

void writeFromRows(const std::string& path, const std::string& cacheKey,
                   const SignatureMatrix& shape, const RowBlocks& rows) {
    if (shape.hashes <= 0 || shape.eligible.size() != shape.size())
        throw StoreError("project store: signature matrix has inconsistent shape");
    const auto h = static_cast<std::size_t>(shape.hashes);
    try {
        AtomicFile file(path);
        file.write(header(cacheKey, shape));
        std::vector<uint32_t> block;
        for (uint64_t first = 0; first < shape.size();) {
            const auto count =
                static_cast<std::size_t>(std::min<uint64_t>(kRowBlock, shape.size() - first));
            block.resize(count * h);
            rows(first, count, block.data());
            file.write(block.data(), block.size() * sizeof(uint32_t));
            first += count;
        }
        file.write(shape.digests.data(), digestBytes(shape.size()));
        file.write(shape.eligible.data(), shape.size());
        file.commitDurably();
    } catch (const StoreError&) {
        throw;
    } catch (const Cancelled&) {  // from `rows`: the temporary file is removed, nothing recorded
        throw;
    } catch (const std::runtime_error& e) {
        throw StoreError(std::string("project store: ") + e.what());
    }
}

std::string encode(const std::string& cacheKey, const SignatureMatrix& sig) {
    checkShape(sig);
    std::string out = header(cacheKey, sig);
    const std::size_t vb = valueBytes(sig.size(), sig.hashes);
    const std::size_t db = digestBytes(sig.size());
    const std::size_t base = out.size();
    const std::size_t eb = sig.size();
    out.resize(base + vb + db + eb);
    if (vb > 0) std::memcpy(out.data() + base, sig.values.data(), vb);
    if (db > 0) std::memcpy(out.data() + base + vb, sig.digests.data(), db);
    if (eb > 0) std::memcpy(out.data() + base + vb + db, sig.eligible.data(), eb);
    return out;
}

bool read(const std::string& path, const std::string& cacheKey, uint64_t documents, int hashes,
          SignatureMatrix& out) {
    out = SignatureMatrix{};
    if (hashes <= 0) return false;
    std::size_t headerBytes = 0;
    const UniqueFd fd = openChecked(path, cacheKey, documents, hashes, headerBytes);
    if (fd.get() < 0) return false;
    const std::size_t vb = valueBytes(documents, hashes);
    const std::size_t db = digestBytes(documents);
    const auto eb = static_cast<std::size_t>(documents);
    out.resize(static_cast<std::size_t>(documents), hashes);
    if (!readAll(fd.get(), out.values.data(), vb) || !readAll(fd.get(), out.digests.data(), db) ||
        !readAll(fd.get(), out.eligible.data(), eb)) {
        out = SignatureMatrix{};
        return false;
    }
    return true;
}

bool readLeadingValues(const std::string& path, const std::string& cacheKey, uint64_t documents,
                       int hashes, uint64_t count, uint32_t* out) {
    if (hashes <= 0 || count > documents) return false;
    std::size_t headerBytes = 0;
    const UniqueFd fd = openChecked(path, cacheKey, documents, hashes, headerBytes);
    return fd.get() >= 0 && readAll(fd.get(), out, valueBytes(count, hashes));
}

bool openValues(const std::string& path, const std::string& cacheKey, uint64_t documents,
                int hashes, OpenedRows& out) {
    if (hashes <= 0) return false;
    std::size_t headerBytes = 0;
    UniqueFd fd = openChecked(path, cacheKey, documents, hashes, headerBytes);
    if (fd.get() < 0) return false;
    out.fd = std::move(fd);
    out.valuesAt = headerBytes;
    return true;
}

bool openRows(const std::string& path, const std::string& cacheKey, uint64_t documents, int hashes,
              SignatureMatrix& shape, OpenedRows& out) {
    shape = SignatureMatrix{};
    OpenedRows opened;
    if (!openValues(path, cacheKey, documents, hashes, opened)) return false;
    const auto n = static_cast<std::size_t>(documents);
    shape.hashes = hashes;
    shape.digests.resize(n);
    shape.eligible.resize(n);
    const auto tailAt = static_cast<off_t>(opened.valuesAt + valueBytes(documents, hashes));
    if (::lseek(opened.fd.get(), tailAt, SEEK_SET) < 0 ||
        !readAll(opened.fd.get(), shape.digests.data(), digestBytes(documents)) ||
        !readAll(opened.fd.get(), shape.eligible.data(), n)) {
        shape = SignatureMatrix{};
        return false;
    }
    out = std::move(opened);
    return true;
}

bool decode(const void* data, std::size_t bytes, const std::string& cacheKey, uint64_t documents,
            int hashes, SignatureMatrix& out) {
    out = SignatureMatrix{};
    if (hashes <= 0 || data == nullptr) return false;
    const auto* p = static_cast<const unsigned char*>(data);
    const std::size_t headerBytes = checkHeader(p, bytes, cacheKey, documents, hashes);
    if (headerBytes == 0) return false;
    const std::size_t vb = valueBytes(documents, hashes);
    const std::size_t db = digestBytes(documents);
    const auto eb = static_cast<std::size_t>(documents);
    if (bytes != headerBytes + vb + db + eb) return false;
    out.resize(static_cast<std::size_t>(documents), hashes);
    if (vb > 0) std::memcpy(out.values.data(), p + headerBytes, vb);
    if (db > 0) std::memcpy(out.digests.data(), p + headerBytes + vb, db);
    if (eb > 0) std::memcpy(out.eligible.data(), p + headerBytes + vb + db, eb);
    return true;
}

bool readRowsAt(int fd, uint64_t valuesAt, uint64_t documents, int hashes,
                const std::vector<uint32_t>& rows, std::vector<uint32_t>& values) {
    values.clear();
    if (hashes <= 0) return false;
    const std::size_t rowBytes = valueBytes(1, hashes);
    values.resize(rows.size() * static_cast<std::size_t>(hashes));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] >= documents) {
            values.clear();
            return false;
        }
        auto* to = reinterpret_cast<char*>(values.data() + i * static_cast<std::size_t>(hashes));
        const auto at = static_cast<off_t>(valuesAt + rows[i] * rowBytes);
        for (std::size_t done = 0; done < rowBytes;) {
            const ssize_t n =
                ::pread(fd, to + done, rowBytes - done, at + static_cast<off_t>(done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                values.clear();
                return false;
            }
            done += static_cast<std::size_t>(n);
        }
    }
    return true;
}

bool readRowsAt(const OpenedRows& file, uint64_t documents, int hashes,
                const std::vector<uint32_t>& rows, std::vector<uint32_t>& values) {
    if (file.sharedRows == 0)
        return readRowsAt(file.fd.get(), file.valuesAt, documents, hashes, rows, values);
    // Rows are sorted: the shared ones come first, read from the base's file.
    const auto split = static_cast<std::size_t>(
        std::lower_bound(rows.begin(), rows.end(), file.sharedRows) - rows.begin());
    std::vector<uint32_t> own;
    if (!readRowsAt(file.baseFd.get(), file.baseValuesAt, file.sharedRows, hashes,
                    std::vector<uint32_t>(rows.begin(), rows.begin() + split), values) ||
        !readRowsAt(file.fd.get(), file.valuesAt, documents, hashes,
                    std::vector<uint32_t>(rows.begin() + split, rows.end()), own)) {
        values.clear();
        return false;
    }
    values.insert(values.end(), own.begin(), own.end());
    return true;
}

}  // namespace neardup::sigfile
