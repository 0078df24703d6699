// Flat byte messages between ranks: values and arrays of trivially copyable types, appended in
// order and read back in the same order. All ranks run the same binary on the same architecture
// (byte order and layout are not converted).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace neardup::mpi {

class WireWriter {
  public:
    template <class T>
    void put(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>);
        append(&value, sizeof(T));
    }
    template <class T>
    void putArray(const T* data, std::size_t count) {
        static_assert(std::is_trivially_copyable_v<T>);
        put<uint64_t>(count);
        if (count) append(data, count * sizeof(T));
    }
    template <class T>
    void putVector(const std::vector<T>& v) {
        putArray(v.data(), v.size());
    }
    void putString(const std::string& s) { putArray(s.data(), s.size()); }
    // Raw bytes without a count: the caller wrote the count (put<uint64_t>) before.
    void putRaw(const void* data, std::size_t n) {
        if (n) append(data, n);
    }

    std::vector<char>& bytes() { return bytes_; }

  private:
    void append(const void* p, std::size_t n) {
        const std::size_t at = bytes_.size();
        bytes_.resize(at + n);
        std::memcpy(bytes_.data() + at, p, n);
    }
    std::vector<char> bytes_;
};

class WireReader {
  public:
    explicit WireReader(const std::vector<char>& bytes)
        : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

    template <class T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        T value;
        take(&value, sizeof(T));
        return value;
    }
    template <class T>
    void getVector(std::vector<T>& out) {
        const auto count = get<uint64_t>();
        if (count > static_cast<uint64_t>(end_ - p_) / sizeof(T))
            throw std::runtime_error("malformed MPI message (array past its end)");
        out.resize(static_cast<std::size_t>(count));
        if (count) take(out.data(), out.size() * sizeof(T));
    }
    // Copies an array of exactly `expected` values into out (which must have room for them).
    template <class T>
    void getInto(T* out, std::size_t expected) {
        const auto count = get<uint64_t>();
        if (count != expected) throw std::runtime_error("malformed MPI message (array size)");
        if (count) take(out, expected * sizeof(T));
    }
    std::string getString() {
        std::vector<char> chars;
        getVector(chars);
        return std::string(chars.begin(), chars.end());
    }
    bool atEnd() const { return p_ == end_; }

  private:
    void take(void* out, std::size_t n) {
        if (n > static_cast<std::size_t>(end_ - p_))
            throw std::runtime_error("malformed MPI message (truncated)");
        std::memcpy(out, p_, n);
        p_ += n;
    }
    const char* p_;
    const char* end_;
};

}  // namespace neardup::mpi
