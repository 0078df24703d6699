// The wire format of an MPI job's messages (mpi_messages.h): one Writer and one Reader visitor
// walk a message's field list, so that every message is written and read the same way. No MPI
// here: the codec is tested on its own (tests/mpi/test_mpi_codec.cpp).
//
// Layout: numbers and enums as they are in memory (every rank runs the same binary on the same
// architecture, so byte order and layout are not converted); bool as one byte, 0 or 1; strings
// and vectors as a uint64 count, then their elements: in one block when they are trivially
// copyable and have no field list (numbers, ParsedDocument, ScoredPair), else one by one. A
// request is its Op, then its fields; a reply is Status::Ok then its fields, or Status::Error
// then the reason. A buffer that ends early, has bytes left over, a count past its end, a bool
// that is neither 0 nor 1, another Op or Status than expected, or fields that contradict each
// other (validate) is refused with WireError, before anything uses it.
#pragma once

#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "mpi_messages.h"

namespace neardup::mpi {

// A message that cannot be read: truncated, corrupt, or not the one expected.
class WireError : public std::runtime_error {
  public:
    explicit WireError(const std::string& what)
        : std::runtime_error("malformed MPI message (" + what + ")") {}
};

// Stands for a visitor when asking whether a type has a field list.
struct FieldProbe {};
template <class T>
concept HasFields = requires(T& value, FieldProbe& probe) {
    fields(probe, value);
};
template <class T>
concept Validated = requires(const T& value) {
    validate(value);
};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T>
struct IsReference : std::false_type {};
template <class T>
struct IsReference<std::reference_wrapper<T>> : std::true_type {};
// Copied as a block of bytes: trivially copyable, without a field list of its own.
template <class T>
concept Bulk = std::is_trivially_copyable_v<T> && !HasFields<T> && !std::is_pointer_v<T> &&
               !IsReference<T>::value && !std::is_same_v<T, bool>;

// Appends fields to a byte buffer.
class Writer {
  public:
    template <class... T>
    void operator()(const T&... values) {
        (write(values), ...);
    }
    std::vector<char> take() { return std::move(bytes_); }

  private:
    template <class T>
    void write(const T& value) {
        if constexpr (std::is_same_v<T, bool>) {
            const uint8_t byte = value ? 1 : 0;
            append(&byte, 1);
        } else if constexpr (std::is_same_v<T, std::string>) {
            write<uint64_t>(value.size());
            append(value.data(), value.size());
        } else if constexpr (IsVector<T>::value) {
            using E = typename T::value_type;
            static_assert(!std::is_same_v<E, bool>, "std::vector<bool> has no byte layout");
            write<uint64_t>(value.size());
            if constexpr (Bulk<E>) {
                append(value.data(), value.size() * sizeof(E));
            } else {
                for (const E& element : value)
                    write(element);
            }
        } else if constexpr (IsReference<T>::value) {
            write(value.get());  // written as the value it refers to
        } else if constexpr (HasFields<T>) {
            fields(*this, value);
        } else {
            static_assert(Bulk<T>, "a field needs a field list (fields) or a plain layout");
            append(&value, sizeof(T));
        }
    }
    void append(const void* data, std::size_t n) {
        if (n == 0) return;
        const std::size_t at = bytes_.size();
        bytes_.resize(at + n);
        std::memcpy(bytes_.data() + at, data, n);
    }
    std::vector<char> bytes_;
};

// Reads fields from a byte buffer in the order the Writer wrote them; throws WireError.
class Reader {
  public:
    explicit Reader(std::span<const char> bytes)
        : at_(bytes.data()), end_(bytes.data() + bytes.size()) {}

    template <class... T>
    void operator()(T&... values) {
        (read(values), ...);
    }
    void expectEnd() const {
        if (at_ != end_) throw WireError("bytes after its end");
    }

  private:
    template <class T>
    void read(T& value) {
        if constexpr (std::is_same_v<T, bool>) {
            uint8_t byte = 0;
            take(&byte, 1);
            if (byte > 1) throw WireError("a flag that is neither 0 nor 1");
            value = byte != 0;
        } else if constexpr (std::is_same_v<T, std::string>) {
            const std::size_t n = count(1);
            value.assign(at_, n);
            at_ += n;
        } else if constexpr (IsVector<T>::value) {
            using E = typename T::value_type;
            if constexpr (Bulk<E>) {
                const std::size_t n = count(sizeof(E));
                value.resize(n);
                take(value.data(), n * sizeof(E));
            } else {
                // Every element with a field list takes a byte at least; they are read one by
                // one, so that a corrupt count is found before it costs memory.
                const std::size_t n = count(1);
                value.clear();
                for (std::size_t i = 0; i < n; ++i)
                    read(value.emplace_back());
            }
        } else if constexpr (HasFields<T>) {
            fields(*this, value);
            if constexpr (Validated<T>) validate(value);
        } else {
            static_assert(Bulk<T>, "a field needs a field list (fields) or a plain layout");
            take(&value, sizeof(T));
        }
    }
    // A count of elements of `size` bytes each that fit in the rest of the buffer.
    std::size_t count(std::size_t size) {
        uint64_t n = 0;
        take(&n, sizeof n);
        if (n > static_cast<uint64_t>(end_ - at_) / size) throw WireError("array past its end");
        return static_cast<std::size_t>(n);
    }
    void take(void* out, std::size_t n) {
        if (n > static_cast<std::size_t>(end_ - at_)) throw WireError("truncated");
        if (n) std::memcpy(out, at_, n);
        at_ += n;
    }
    const char* at_;
    const char* end_;
};

// A request: its Op, then its fields.
template <class Request>
std::vector<char> encodeRequest(const Request& request) {
    Writer w;
    w(Request::kOp, request);
    return w.take();
}

// The Op a request starts with; throws WireError when it is none of them.
Op requestOp(std::span<const char> bytes);

// A request of this type, every byte read; throws WireError.
template <class Request>
Request decodeRequest(std::span<const char> bytes) {
    Reader r(bytes);
    Op op{};
    r(op);
    if (op != Request::kOp) throw WireError("another request than expected");
    Request request;
    r(request);
    r.expectEnd();
    return request;
}

// A reply: Status::Ok, then its fields.
template <class Reply>
std::vector<char> encodeReply(const Reply& reply) {
    Writer w;
    w(Status::Ok, reply);
    return w.take();
}

// A failed request's reply: Status::Error, then the reason.
std::vector<char> encodeFailure(const std::string& reason);

// A reply as it came: the value, or why the rank failed the request.
template <class Reply>
struct Answer {
    bool ok = false;
    std::string failure;  // when !ok
    Reply value;          // when ok
};

// Throws WireError when the bytes are neither a reply of this type nor a failure.
template <class Reply>
Answer<Reply> decodeReply(std::span<const char> bytes) {
    Reader r(bytes);
    Status status{};
    r(status);
    Answer<Reply> answer;
    if (status == Status::Ok) {
        answer.ok = true;
        r(answer.value);
    } else if (status == Status::Error) {
        r(answer.failure);
    } else {
        throw WireError("unknown status");
    }
    r.expectEnd();
    return answer;
}

}  // namespace neardup::mpi
