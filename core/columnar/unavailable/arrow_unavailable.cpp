// core/columnar's Arrow IPC reading in a build without Apache Arrow: every Arrow input is
// refused by name.
#include "arrow_ipc_file.h"

namespace neardup::columnar {

std::vector<RowGroupSpan> arrowRecordBatches(const std::string& path, uint64_t) {
    throw ColumnarError(arrowNotCompiledInMessage(path));
}

struct ArrowBatchReader::Impl {};

ArrowBatchReader::ArrowBatchReader(std::string, std::string, std::string) {}
ArrowBatchReader::~ArrowBatchReader() = default;

const RowGroupColumns& ArrowBatchReader::read(const std::string& path, uint64_t, uint32_t) {
    throw ColumnarError(arrowNotCompiledInMessage(path));
}

void copyArrowRows(const std::string& source, const ParquetRowSelection&,
                   const std::function<void(std::string_view)>&,
                   const std::function<void(uint64_t)>&) {
    throw ColumnarError(arrowNotCompiledInMessage(source));
}

}  // namespace neardup::columnar
