// An Arrow output stream that hands every byte to a callback, in order: how the Parquet writers
// of this room write through the caller's atomic output file without knowing it. Internal to
// core/columnar/arrow (includes Arrow).
#pragma once

#include <arrow/io/interfaces.h>

#include <functional>
#include <string_view>

namespace neardup::columnar {

class CallbackStream : public arrow::io::OutputStream {
  public:
    explicit CallbackStream(std::function<void(std::string_view)> write)
        : write_(std::move(write)) {}
    arrow::Status Close() override {
        closed_ = true;
        return arrow::Status::OK();
    }
    bool closed() const override { return closed_; }
    arrow::Result<int64_t> Tell() const override { return position_; }
    // The callback's exceptions (a full disk) leave through Arrow's writer, which is then
    // abandoned with the output.
    arrow::Status Write(const void* data, int64_t nbytes) override {
        write_(std::string_view(static_cast<const char*>(data), static_cast<std::size_t>(nbytes)));
        position_ += nbytes;
        return arrow::Status::OK();
    }

  private:
    std::function<void(std::string_view)> write_;
    int64_t position_ = 0;
    bool closed_ = false;
};

}  // namespace neardup::columnar
