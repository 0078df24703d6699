// What every build knows about Arrow IPC inputs (their names, the message for a build without
// Arrow) and the reading of a columnar file by its name (arrow_ipc_file.h).
#include <algorithm>
#include <cctype>

#include "arrow_ipc_file.h"

namespace neardup::columnar {

bool isArrowName(std::string_view path) {
    constexpr std::string_view kSuffix = ".arrow";
    if (path.size() < kSuffix.size()) return false;
    const std::string_view tail = path.substr(path.size() - kSuffix.size());
    return std::equal(tail.begin(), tail.end(), kSuffix.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
    });
}

bool isColumnarName(std::string_view path) {
    return isParquetName(path) || isArrowName(path);
}

std::string arrowNotCompiledInMessage(const std::string& path) {
    return "cannot read '" + path +
           "': it is an Arrow IPC file and Arrow support is not compiled in (this build has no "
           "Apache Arrow: run scripts/install-deps.sh, then configure and build again)";
}

std::vector<RowGroupSpan> columnarSpans(const std::string& path, uint64_t fileSize) {
    return isArrowName(path) ? arrowRecordBatches(path, fileSize)
                             : parquetRowGroups(path, fileSize);
}

ColumnarRowReader::ColumnarRowReader(std::string textField, std::string idField,
                                     std::string keepField)
    : textField_(std::move(textField)),
      idField_(std::move(idField)),
      keepField_(std::move(keepField)) {}

ColumnarRowReader::~ColumnarRowReader() = default;

const RowGroupColumns& ColumnarRowReader::read(const std::string& path, uint64_t fileSize,
                                               uint32_t group, std::string_view bytes,
                                               uint64_t bytesOffset) {
    if (isArrowName(path)) {
        if (!arrow_) arrow_ = std::make_unique<ArrowBatchReader>(textField_, idField_, keepField_);
        return arrow_->read(path, fileSize, group);
    }
    if (!parquet_) parquet_ = std::make_unique<ParquetRowReader>(textField_, idField_, keepField_);
    return parquet_->read(path, fileSize, group, bytes, bytesOffset);
}

}  // namespace neardup::columnar
