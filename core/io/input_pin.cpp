#include "input_pin.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <string>

#include "byte_stream.h"
#include "jsonl_reader.h"

namespace neardup {

namespace {

// The weight of 8-byte word `w` of a file: odd, so that any change of the word changes the sum.
inline uint64_t wordWeight(uint64_t w) {
    uint64_t k = (w + 1) * 0x9E3779B97F4A7C15ull;
    k ^= k >> 29;
    return k | 1;
}

int64_t nanoseconds(const struct timespec& t) {
    return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

std::string quoted(const std::string& path) {
    return "'" + path + "'";
}

}  // namespace

uint64_t fingerprintPart(const char* data, std::size_t n, uint64_t offset) {
    uint64_t sum = 0;
    std::size_t i = 0;
    // A word is the 8 bytes at offsets [8w, 8w + 8), little-endian: parts of a word from two
    // calls hold disjoint bytes, so their values add up to the whole word's without carries.
    auto partial = [&](std::size_t count) {
        const uint64_t w = (offset + i) / 8;
        uint64_t value = 0;
        for (std::size_t j = 0; j < count; ++j) {
            const auto lane = static_cast<unsigned>((offset + i + j) % 8);
            value |= uint64_t{static_cast<unsigned char>(data[i + j])} << (8 * lane);
        }
        sum += value * wordWeight(w);
        i += count;
    };
    if (const auto head = static_cast<std::size_t>((8 - offset % 8) % 8); head > 0)
        partial(head < n ? head : n);
    for (; i + 8 <= n; i += 8) {
        uint64_t value = 0;
        std::memcpy(&value, data + i, 8);  // little-endian hosts (x86-64, aarch64)
        sum += value * wordWeight((offset + i) / 8);
    }
    if (i < n) partial(n - i);
    return sum;
}

uint64_t fingerprintFile(const InputFile& file, uint64_t upTo, uint64_t& bytes) {
    ByteStream stream;
    stream.open(file);
    std::string buffer(std::size_t{1} << 20, '\0');
    uint64_t sum = 0;
    bytes = 0;
    while (bytes < upTo) {
        const uint64_t want64 = upTo - bytes < buffer.size() ? upTo - bytes : buffer.size();
        const std::size_t got = stream.read(buffer.data(), static_cast<std::size_t>(want64));
        if (got == 0) break;
        sum += fingerprintPart(buffer.data(), got, bytes);
        bytes += got;
    }
    return sum;
}

ContentPinner pinFilePrefix(const InputFile& file, uint64_t upTo) {
    ByteStream stream;
    stream.open(file);
    std::string buffer(std::size_t{1} << 20, '\0');
    ContentPinner pinner(file.pinKey);
    while (pinner.bytes() < upTo) {
        const uint64_t left = upTo - pinner.bytes();
        const std::size_t got = stream.read(
            buffer.data(), left < buffer.size() ? static_cast<std::size_t>(left) : buffer.size());
        if (got == 0) break;
        pinner.add(buffer.data(), got);
    }
    return pinner;
}

std::string contentMismatch(const InputFile& pinned, const InputFile& now) {
    InputFile reading = now;
    reading.pinKey = pinned.pinKey;
    if (pinned.legacySum) {
        uint64_t bytes = 0;
        const uint64_t sum = fingerprintFile(reading, std::numeric_limits<uint64_t>::max(), bytes);
        if (bytes != pinned.contentBytes || sum != pinned.fingerprint)
            return "same size, but its content differs";
        return {};
    }
    ContentPinner pinner = pinFilePrefix(reading, std::numeric_limits<uint64_t>::max());
    const uint64_t bytes = pinner.bytes();
    if (bytes != pinned.contentBytes || pinner.finish() != pinned.pin)
        return "same size, but its content differs";
    return {};
}

bool statIdentity(InputFile& file) {
    struct stat sb {};
    if (::stat(file.path.c_str(), &sb) != 0) return false;
    file.size = static_cast<uint64_t>(sb.st_size);
    file.mtimeNs = nanoseconds(sb.st_mtim);
    file.ctimeNs = nanoseconds(sb.st_ctim);
    file.device = static_cast<uint64_t>(sb.st_dev);
    file.inode = static_cast<uint64_t>(sb.st_ino);
    return true;
}

bool sameIdentity(const InputFile& pinned, const InputFile& now) {
    return now.mtimeNs == pinned.mtimeNs &&
           (pinned.device == 0 || (now.ctimeNs == pinned.ctimeNs && now.device == pinned.device &&
                                   now.inode == pinned.inode));
}

std::string pinProblem(const InputFile& pinned) {
    const std::string name = "input " + quoted(pinned.path);
    if (pinned.mtimeNs < 0) return {};  // unreadable when read: its lines were never used
    InputFile now;
    now.path = pinned.path;
    now.compression = pinned.compression;
    if (!statIdentity(now)) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR)
            return name +
                   " not found (moved or deleted since it was read; `neardup relocate` "
                   "re-points a project to moved inputs)";
        return "cannot examine " + name + ": " + std::strerror(err);
    }
    if (now.size != pinned.size)
        return name + " changed since it was read: it was " + std::to_string(pinned.size) +
               " bytes, it is " + std::to_string(now.size) + " now";
    if (sameIdentity(pinned, now)) return {};
    if (!pinned.fingerprinted)
        return name +
               " changed since it was read: it was modified at another time (no "
               "fingerprint of its content is stored to tell whether it is the same)";
    // Same size, other times or another inode: the content decides.
    try {
        if (std::string mismatch = contentMismatch(pinned, now); !mismatch.empty())
            return name + " changed since it was read: " + mismatch;
    } catch (const std::exception& e) {
        return name + " cannot be checked: " + e.what();
    }
    return {};
}

std::string pinProblem(const std::vector<InputFile>& files) {
    for (const InputFile& f : files)
        if (std::string problem = pinProblem(f); !problem.empty()) return problem;
    return {};
}

}  // namespace neardup
