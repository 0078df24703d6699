// parquetFields in a build without Apache Arrow: a Parquet file's columns cannot be listed, and
// the message says why, by the file's name.
#include "field_listing.h"
#include "parquet_file.h"

namespace neardup::columnar {

std::vector<FieldInfo> parquetFields(const std::string& path) {
    throw ColumnarError(notCompiledInMessage(path));
}

}  // namespace neardup::columnar
