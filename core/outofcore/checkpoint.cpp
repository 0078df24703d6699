// Read checkpoints (checkpoint.h): naming them after what determines their rows, appending
// records on a thread of their own, and restoring the rows a killed run left.
#include "checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <zlib.h>

#include <bit>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>

#include "atomic_file.h"
#include "digest.h"
#include "signature_file.h"

namespace neardup {

static_assert(std::endian::native == std::endian::little,
              "checkpoints are little-endian; add byte swapping for this platform");

namespace {

// 03: signature values in a file of their own, laid out as the signature cache (02 held them
// in the records; 01 checked records with FNV-1a, four times slower than CRC-32).
constexpr char kMagic[8] = {'N', 'D', 'W', 'C', 'K', 'P', '0', '3'};
constexpr uint64_t kDefaultEvery = uint64_t{256} << 20;
constexpr uint64_t kMaxPayload = uint64_t{1} << 40;

template <typename T>
void put(std::string& s, T v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
void putArray(std::string& s, const T* p, std::size_t n) {
    s.append(reinterpret_cast<const char*>(p), n * sizeof(T));
}

// Reads fixed-size values from a payload; any overrun makes ok() false.
class Reader {
  public:
    Reader(const char* p, std::size_t n) : p_(p), end_(p + n) {}
    template <typename T>
    T get() {
        T v{};
        if (static_cast<std::size_t>(end_ - p_) < sizeof v) {
            ok_ = false;
            return v;
        }
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        return v;
    }
    template <typename T>
    bool array(T* out, std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (n > kMaxPayload || static_cast<std::size_t>(end_ - p_) < bytes) return ok_ = false;
        std::memcpy(out, p_, bytes);
        p_ += bytes;
        return true;
    }
    std::string_view bytes(std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n) {
            ok_ = false;
            return {};
        }
        const std::string_view v(p_, n);
        p_ += n;
        return v;
    }
    bool ok() const { return ok_; }
    bool done() const { return p_ == end_; }

  private:
    const char* p_;
    const char* end_;
    bool ok_ = true;
};

// The checksum of a record's payload: zlib's CRC-32, which checks a record of tens of MB in a few
// milliseconds.
uint64_t recordChecksum(const void* payload, std::size_t size) {
    return crc32_z(crc32_z(0, nullptr, 0), static_cast<const Bytef*>(payload), size);
}

bool writeAll(int fd, const void* data, std::size_t size, off_t at) {
    const auto* p = static_cast<const char*>(data);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pwrite(fd, p + done, size - done, at + static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

bool writeAll(int fd, const std::string& s, off_t at) {
    return writeAll(fd, s.data(), s.size(), at);
}

bool readAll(int fd, void* out, std::size_t n, off_t at) {
    auto* p = static_cast<char*>(out);
    std::size_t done = 0;
    while (done < n) {
        const ssize_t r = ::pread(fd, p + done, n - done, at + static_cast<off_t>(done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        done += static_cast<std::size_t>(r);
    }
    return true;
}

bool readAll(int fd, std::string& s, std::size_t n, off_t at) {
    s.resize(n);
    return readAll(fd, s.data(), n, at);
}

// Whether the file at `fd` opens with the magic and exactly `key`.
bool headerMatches(int fd, const std::string& key) {
    std::string buf;
    if (!readAll(fd, buf, sizeof kMagic + 4 + key.size(), 0) ||
        std::memcmp(buf.data(), kMagic, sizeof kMagic) != 0)
        return false;
    uint32_t keyLength = 0;
    std::memcpy(&keyLength, buf.data() + sizeof kMagic, 4);
    return keyLength == key.size() &&
           std::memcmp(buf.data() + sizeof kMagic + 4, key.data(), key.size()) == 0;
}

// Reads one whole record at `at` into `payload` (its checksum after it); false at the end of
// the file, at a torn record or at a wrong checksum: where the usable records end.
bool readRecord(int fd, off_t at, std::string& payload, uint64_t& length) {
    std::string lengthBytes;
    if (!readAll(fd, lengthBytes, 8, at)) return false;
    std::memcpy(&length, lengthBytes.data(), 8);
    if (length > kMaxPayload || !readAll(fd, payload, static_cast<std::size_t>(length) + 8, at + 8))
        return false;
    uint64_t sum = 0;
    std::memcpy(&sum, payload.data() + length, 8);
    return sum == recordChecksum(payload.data(), static_cast<std::size_t>(length));
}

// What the records read so far hold, and where they end.
struct RestoredRead {
    DocumentTable docs;
    SignatureMatrix sigs;
    RejectionLog log;
    ReadPosition position;                     // after the last record
    uint64_t lines = 0, blank = 0, bytes = 0;  // totals at the last record
    int records = 0;
    off_t validEnd = 0;      // the end of the last whole record (the header's end without one)
    bool malformed = false;  // a whole record (checksum right) that does not parse
};

enum class RecordOutcome { Taken, End, Malformed };

// Where the values of row `row` are in the values' file.
off_t valuesAt(uint64_t valuesOffset, uint64_t row, int hashes) {
    return static_cast<off_t>(valuesOffset + row * static_cast<uint64_t>(hashes) * 4);
}

// Appends the rows of one record's payload (the layout at the top of checkpoint.h) to `into`,
// with their values from the values' file `valuesFd`. End: the payload is too short for its
// columns, or the values' file for its rows or their checksum (treated like a torn record).
RecordOutcome takeRecord(const char* payload, uint64_t length, int hashes, int valuesFd,
                         uint64_t valuesOffset, RestoredRead& into) {
    const auto h = static_cast<std::size_t>(hashes);
    Reader r(payload, static_cast<std::size_t>(length));
    ReadPosition p;
    p.file = r.get<uint32_t>();
    p.offset = r.get<uint64_t>();
    p.line = r.get<uint64_t>();
    const uint64_t recLines = r.get<uint64_t>(), recBlank = r.get<uint64_t>(),
                   recBytes = r.get<uint64_t>();
    const uint64_t first = r.get<uint64_t>(), n = r.get<uint64_t>();
    const uint64_t valuesSum = r.get<uint64_t>();
    DocumentTable& d = into.docs;
    SignatureMatrix& s = into.sigs;
    // Every row takes at least 49 bytes: its columns, id length, digest and flag.
    if (!r.ok() || first != d.size() || n > length / 49) return RecordOutcome::Malformed;
    const auto count = static_cast<std::size_t>(n);
    std::vector<uint32_t> file(count), length32(count), chars(count);
    std::vector<uint64_t> line(count), offset(count);
    std::vector<double> keep(count);
    r.array(file.data(), count);
    r.array(line.data(), count);
    r.array(offset.data(), count);
    r.array(length32.data(), count);
    r.array(chars.data(), count);
    r.array(keep.data(), count);
    if (!r.ok()) return RecordOutcome::End;
    const std::size_t before = d.size();
    s.values.resize((before + count) * h);
    const std::size_t valueBytes = count * h * sizeof(uint32_t);
    if (valuesFd < 0 ||
        !readAll(valuesFd, s.values.data() + before * h, valueBytes,
                 valuesAt(valuesOffset, first, hashes)) ||
        recordChecksum(s.values.data() + before * h, valueBytes) != valuesSum) {
        s.values.resize(before * h);
        return RecordOutcome::End;
    }
    for (std::size_t i = 0; i < count && r.ok(); ++i) {
        const auto idLength = r.get<uint32_t>();
        const std::string_view id = r.bytes(idLength);
        d.append(file[i], line[i], offset[i], length32[i], chars[i], keep[i], id);
    }
    s.digests.resize(before + count);
    s.eligible.resize(before + count);
    r.array(s.digests.data() + before, count);
    r.array(s.eligible.data() + before, count);
    const uint64_t rejected = r.get<uint64_t>();
    for (uint64_t k = 0; k < rejected && r.ok(); ++k) {
        Rejection rej;
        const auto reason = r.get<uint8_t>();
        rej.file = r.get<uint32_t>();
        rej.line = r.get<uint64_t>();
        const auto detailLength = r.get<uint32_t>();
        rej.detail = std::string(r.bytes(detailLength));
        if (reason >= kRejectReasonCount) r.bytes(SIZE_MAX);  // makes r not ok
        rej.reason = static_cast<RejectReason>(reason);
        if (r.ok()) into.log.add(rej);
    }
    if (!r.ok() || !r.done()) return RecordOutcome::Malformed;
    into.position = p;
    into.lines = recLines;
    into.blank = recBlank;
    into.bytes = recBytes;
    return RecordOutcome::Taken;
}

// Every usable record after the header, in order, until the first torn or malformed one.
RestoredRead readRecords(int fd, off_t headerEnd, int hashes, int valuesFd, uint64_t valuesOffset) {
    RestoredRead read;
    read.sigs.hashes = hashes;
    read.validEnd = headerEnd;
    off_t at = headerEnd;
    std::string payload;
    uint64_t length = 0;
    while (readRecord(fd, at, payload, length)) {
        const RecordOutcome outcome =
            takeRecord(payload.data(), length, hashes, valuesFd, valuesOffset, read);
        if (outcome == RecordOutcome::Malformed) read.malformed = true;
        if (outcome != RecordOutcome::Taken) break;
        at += static_cast<off_t>(8 + length + 8);
        read.validEnd = at;
        ++read.records;
    }
    return read;
}

}  // namespace

std::string sidecarDirectory(const std::string& projectPath) {
    if (projectPath.empty() || projectPath == ":memory:") return {};
    return projectPath + ".d";
}

ReadCheckpoint::ReadCheckpoint(std::string sidecarDir, const std::vector<InputFile>& files,
                               const ReaderOptions& reader, const std::string& cacheKey, int hashes)
    : hashes_(hashes) {
    if (sidecarDir.empty()) return;
    everyBytes_ = kDefaultEvery;
    if (const char* env = std::getenv("NEARDUP_CHECKPOINT_BYTES"); env != nullptr && *env) {
        everyBytes_ = std::strtoull(env, nullptr, 10);
        if (everyBytes_ == 0) return;  // 0 turns checkpoints off
    }
    for (const InputFile& f : files) {
        std::error_code ec;  // the same files, however they were named on the command line
        const auto abs = std::filesystem::absolute(f.path, ec);
        key_ += ec ? f.path : abs.lexically_normal().string();
        key_ += '\0';
        key_ += std::to_string(f.size) + ":" + std::to_string(f.mtimeNs) + ":" +
                toString(f.compression) + '\n';
    }
    key_ += reader.textField + '\0' + reader.idField + '\0' + reader.keepField + '\0';
    key_ += cacheKey + '\0' + std::to_string(hashes);
    const std::string name = fmt::format("checkpoint-{:016x}", fnv1a(key_));
    path_ = sidecarDir + "/" + name + ".bin";
    valuesPath_ = sidecarDir + "/" + name + ".sig";
    cacheKey_ = cacheKey;
    valuesOffset_ = sigfile::valuesOffset(cacheKey);
    enabled_ = true;
}

ReadCheckpoint::~ReadCheckpoint() {
    settle();
    closeFiles();
}

void ReadCheckpoint::closeFiles() {
    if (fd_ >= 0) ::close(fd_);
    if (valuesFd_ >= 0) ::close(valuesFd_);
    fd_ = valuesFd_ = -1;
}

void ReadCheckpoint::settle() {
    if (!writing_.valid()) return;
    if (writing_.get()) {
        ++records_;
        writingPending_.clear();
        return;
    }
    // A partial record is ignored when restoring; cut it off, and let the next record carry
    // its rows and rejections again (the disk may have room by then).
    if (::ftruncate(fd_, writingAt_) != 0) return disable();
    recordedRows_ = writingFirstRow_;
    pending_.insert(pending_.begin(), writingPending_.begin(), writingPending_.end());
    writingPending_.clear();
}

bool ReadCheckpoint::left() const {
    return enabled_ && ::access(path_.c_str(), F_OK) == 0;
}

void ReadCheckpoint::discardFile() {
    closeFiles();
    ::unlink(path_.c_str());
    ::unlink(valuesPath_.c_str());
}

std::optional<ReadPosition> ReadCheckpoint::restore(DocumentTable& docs, SignatureMatrix& sigs,
                                                    RejectionLog& log, DatasetRecord& dataset,
                                                    uint64_t& bytesBefore) {
    if (!enabled_) return std::nullopt;
    const int fd = ::open(path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    fd_ = fd;
    // Missing values leave no usable record: the records are dropped below.
    valuesFd_ = ::open(valuesPath_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    const std::size_t headerBytes = sizeof kMagic + 4 + key_.size();
    if (!headerMatches(fd_,
                       key_)) {  // another shape under a colliding name, or damaged: start afresh
        discardFile();
        return std::nullopt;
    }
    RestoredRead read =
        readRecords(fd_, static_cast<off_t>(headerBytes), hashes_, valuesFd_, valuesOffset_);
    if (read.malformed) {  // written by something else: start afresh
        discardFile();
        records_ = 0;
        recordedRows_ = 0;
        return std::nullopt;
    }
    records_ += read.records;
    if (read.records > 0) recordedRows_ = read.docs.size();
    if (records_ == 0) {
        // Nothing usable yet: keep the header, drop anything after it.
        if (::ftruncate(fd_, read.validEnd) != 0) disable();
        records_ = 0;
        recordedRows_ = 0;
        return std::nullopt;
    }
    // A torn last record (killed while appending it) added nothing: cut it off.
    if (::ftruncate(fd_, read.validEnd) != 0) {
        disable();
        return std::nullopt;
    }
    docs = std::move(read.docs);
    sigs = std::move(read.sigs);
    log = std::move(read.log);
    dataset.linesRead = read.lines;
    dataset.blankLines = read.blank;
    bytesBefore = read.bytes;
    bytesRead_ = read.bytes;
    next_ = read.position;
    return read.position;
}

void ReadCheckpoint::afterChunk(const LineChunk& chunk, const ParsedChunk& parsed,
                                const DocumentTable& docs, const SignatureMatrix& sigs,
                                const DatasetRecord& dataset, uint64_t bytesRead) {
    if (!enabled_) return;
    pending_.insert(pending_.end(), parsed.rejections.begin(), parsed.rejections.end());
    if (!chunk.failure.empty()) {
        next_ = {chunk.file + 1, 0, 1};  // a damaged or unreadable file ends at its failure
    } else {
        next_ = {chunk.file, chunk.baseOffset + chunk.data.size(), chunk.firstLine + parsed.lines};
    }
    sinceLast_ += bytesRead - bytesRead_;
    bytesRead_ = bytesRead;
    if (sinceLast_ < everyBytes_) return;
    // While the disk is still taking the previous record, the next one waits for a later chunk
    // rather than stalling the reading pipeline (records get larger, never lost).
    if (writing_.valid() && writing_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return;
    append(docs, sigs, dataset);
}

void ReadCheckpoint::append(const DocumentTable& docs, const SignatureMatrix& sigs,
                            const DatasetRecord& dataset) {
    sinceLast_ = 0;
    settle();  // the file's size below must include the previous record
    if (!enabled_) return;
    try {
        off_t at = 0;
        if (fd_ < 0) {
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
            // Never through a link at the name (the sidecar folder itself was checked by the
            // run's lock, sidecar.h).
            fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
            valuesFd_ = ::open(valuesPath_.c_str(),
                               O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd_ < 0 || valuesFd_ < 0) return disable();
            std::string header(kMagic, sizeof kMagic);
            put(header, static_cast<uint32_t>(key_.size()));
            header += key_;
            if (!writeAll(fd_, header, 0)) return disable();
            recordedRows_ = 0;
        }
        if (valuesFd_ < 0) return disable();
        struct stat st {};
        if (::fstat(fd_, &st) != 0) return disable();
        at = st.st_size;
        const auto h = static_cast<std::size_t>(hashes_);
        const auto first = static_cast<std::size_t>(recordedRows_);
        const std::size_t n = docs.size() - first;
        // The record goes into the buffer of the previous one (settled above): its pages are
        // already mapped, and this copy is all the reading pipeline's in-order stage pays. The
        // length before the payload is filled in below, the checksum after it by the writer.
        std::string& p = record_;
        p.clear();
        put(p, uint64_t{0});
        put(p, next_.file);
        put(p, next_.offset);
        put(p, next_.line);
        put(p, dataset.linesRead);
        put(p, dataset.blankLines);
        put(p, bytesRead_);
        // The rows' values go to the values' file (at their place in the cache's layout), the
        // record keeps their checksum, taken by the writer into its place here.
        values_.assign(sigs.values.begin() + static_cast<std::ptrdiff_t>(first * h),
                       sigs.values.begin() + static_cast<std::ptrdiff_t>((first + n) * h));
        put(p, static_cast<uint64_t>(first));
        put(p, static_cast<uint64_t>(n));
        const std::size_t valuesSumAt = p.size();
        put(p, uint64_t{0});
        putArray(p, docs.file.data() + first, n);
        putArray(p, docs.line.data() + first, n);
        putArray(p, docs.offset.data() + first, n);
        putArray(p, docs.length.data() + first, n);
        putArray(p, docs.chars.data() + first, n);
        putArray(p, docs.keepValue.data() + first, n);
        for (std::size_t i = first; i < docs.size(); ++i) {
            const std::string_view id = docs.id(i);
            put(p, static_cast<uint32_t>(id.size()));
            p.append(id);
        }
        putArray(p, sigs.digests.data() + first, n);
        putArray(p, sigs.eligible.data() + first, n);
        put(p, static_cast<uint64_t>(pending_.size()));
        for (const Rejection& r : pending_) {
            put(p, static_cast<uint8_t>(r.reason));
            put(p, r.file);
            put(p, r.line);
            put(p, static_cast<uint32_t>(r.detail.size()));
            p += r.detail;
        }
        const uint64_t length = p.size() - 8;
        std::memcpy(p.data(), &length, 8);
        // The record holds copies of everything it needs: the pipeline goes on changing `docs`
        // and `sigs` while it is written.
        writingFirstRow_ = recordedRows_;
        writingPending_ = std::move(pending_);
        pending_.clear();
        recordedRows_ = docs.size();
        writingAt_ = at;
        const off_t firstValueAt = valuesAt(valuesOffset_, first, hashes_);
        writing_ = std::async(std::launch::async, [this, at, valuesSumAt, firstValueAt] {
            return writeRecord(at, valuesSumAt, firstValueAt);
        });
    } catch (const std::exception&) {
        disable();  // out of memory for the record: go on without checkpoints
    }
}

bool ReadCheckpoint::writeRecord(off_t at, std::size_t valuesSumAt, off_t valuesAt) {
    const uint64_t valuesSum = recordChecksum(values_.data(), values_.size() * sizeof(uint32_t));
    std::memcpy(record_.data() + valuesSumAt, &valuesSum, sizeof valuesSum);
    put(record_, recordChecksum(record_.data() + 8, record_.size() - 8));
    // The values are on the disk before the record that vouches for them.
    return writeAll(valuesFd_, values_.data(), values_.size() * sizeof(uint32_t), valuesAt) &&
           ::fdatasync(valuesFd_) == 0 && writeAll(fd_, record_, at) && ::fdatasync(fd_) == 0;
}

void ReadCheckpoint::addRejections(std::vector<Rejection> rejections) {
    if (!enabled_) return;
    if (pending_.empty())
        pending_ = std::move(rejections);
    else
        pending_.insert(pending_.end(), rejections.begin(), rejections.end());
}

void ReadCheckpoint::disable() {
    if (writing_.valid()) writing_.wait();  // its file descriptor is closed below
    writing_ = {};
    record_ = std::string();
    if (!enabled_) return;
    enabled_ = false;
    pending_.clear();
    closeFiles();
    ::unlink(path_.c_str());
    ::unlink(valuesPath_.c_str());
}

bool ReadCheckpoint::keepValuesAs(const std::string& cacheKey, const SignatureMatrix& sigs,
                                  const std::string& cachePath) {
    settle();
    if (!enabled_ || valuesFd_ < 0 || cacheKey != cacheKey_ || recordedRows_ > sigs.size())
        return false;
    const auto h = static_cast<std::size_t>(hashes_);
    const auto first = static_cast<std::size_t>(recordedRows_);
    bool ok = writeAll(valuesFd_, sigs.values.data() + first * h,
                       (sigs.size() - first) * h * sizeof(uint32_t),
                       valuesAt(valuesOffset_, first, hashes_));
    const uint64_t size =
        sigfile::completeInPlace(cacheKey, sigs, [&](uint64_t at, const void* data, std::size_t n) {
            ok = ok && writeAll(valuesFd_, data, n, static_cast<off_t>(at));
        });
    // A resumed read may have left bytes of a torn record past the cache's end.
    ok = ok && ::ftruncate(valuesFd_, static_cast<off_t>(size)) == 0 && ::fdatasync(valuesFd_) == 0;
    if (!ok || std::rename(valuesPath_.c_str(), cachePath.c_str()) != 0)
        throw std::runtime_error("cannot write '" + cachePath + "': " + std::strerror(errno));
    syncDirectoryOf(cachePath);
    // The records without their values serve nothing any more.
    disable();
    return true;
}

void ReadCheckpoint::remove() {
    disable();
}

}  // namespace neardup
