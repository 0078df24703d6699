// core/columnar in a build without Apache Arrow: every Parquet input is refused by name.
#include "parquet_file.h"

namespace neardup::columnar {

bool parquetCompiledIn() {
    return false;
}

std::vector<RowGroupSpan> parquetRowGroups(const std::string& path, uint64_t) {
    throw ColumnarError(notCompiledInMessage(path));
}

struct ParquetRowReader::Impl {};

ParquetRowReader::ParquetRowReader(std::string, std::string, std::string) {}
ParquetRowReader::~ParquetRowReader() = default;

const RowGroupColumns& ParquetRowReader::read(const std::string& path, uint64_t, uint32_t,
                                              std::string_view, uint64_t) {
    throw ColumnarError(notCompiledInMessage(path));
}

void copyParquetRows(const std::string& source, const ParquetRowSelection&,
                     const std::function<void(std::string_view)>&,
                     const std::function<void(uint64_t)>&) {
    throw ColumnarError(notCompiledInMessage(source));
}

}  // namespace neardup::columnar
