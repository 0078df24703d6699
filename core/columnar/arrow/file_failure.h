// How this room's Arrow code reports a failure on a file: one ColumnarError saying "cannot
// <doing> '<path>': <why>", where each reader and copier names what it does once. Internal to
// core/columnar/arrow (includes Arrow).
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <string>
#include <string_view>
#include <utility>

#include "parquet_file.h"

namespace neardup::columnar {

class FileFailure {
  public:
    // `doing`: what was being done to the file, as in "read Parquet file".
    explicit constexpr FileFailure(std::string_view doing) : doing_(doing) {}

    [[noreturn]] void operator()(const std::string& path, const std::string& why) const {
        throw ColumnarError("cannot " + std::string(doing_) + " '" + path + "': " + why);
    }

    void check(const arrow::Status& status, const std::string& path) const {
        if (!status.ok()) (*this)(path, status.ToString());
    }

    template <typename T>
    T orFail(arrow::Result<T> result, const std::string& path) const {
        check(result.status(), path);
        return std::move(result).ValueUnsafe();
    }

  private:
    std::string_view doing_;
};

}  // namespace neardup::columnar
