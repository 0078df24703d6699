// parquetFields and arrowFields in a build without Apache Arrow: a Parquet or Arrow file's
// columns cannot be listed, and the message says why, by the file's name.
#include "arrow_ipc_file.h"
#include "field_listing.h"
#include "parquet_file.h"

namespace neardup::columnar {

std::vector<FieldInfo> parquetFields(const std::string& path) {
    throw ColumnarError(notCompiledInMessage(path));
}

std::vector<FieldInfo> arrowFields(const std::string& path) {
    throw ColumnarError(arrowNotCompiledInMessage(path));
}

}  // namespace neardup::columnar
