// A table's row as a list of its fields (std::tie of them, in the order of the table's column
// list), which the row mapper's writer binds and its readers read back in one call each: the
// columns are listed once in SQL and once as fields, so that a column added to one cannot be
// forgotten in the other. Integers of every width (bool as 0 or 1) are stored as SQLite's 64-bit
// integers, as Statement::bindU64 and u32() store and read them; doubles as REAL; strings as TEXT,
// bound without copying (the fields outlive the statement's run()). A reader whose REAL column
// may be NULL (an average over no rows) lists that field as orNaN(field): NaN, as realOrNaN().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "sqlite_handle.h"

namespace neardup::sql {

// A REAL column read into `*value`, NaN when it is NULL.
struct OrNaN {
    double* value;
};
inline OrNaN orNaN(double& value) {
    return {&value};
}

// A row's fields for readFields: references to the fields, OrNaN values among them.
template <typename... F>
std::tuple<F...> fields(F&&... field) {
    return std::tuple<F...>(std::forward<F>(field)...);
}

namespace row_fields {

inline void bindOne(Statement& st, int index, std::string_view text) {
    st.bind(index, text);
}
inline void bindOne(Statement& st, int index, double value) {
    st.bind(index, value);
}
template <typename T>
requires std::is_integral_v<T>
void bindOne(Statement& st, int index, T value) {
    st.bind(index, static_cast<int64_t>(value));
}

inline void readOne(const Statement& st, int column, std::string& text) {
    text = st.string(column);
}
inline void readOne(const Statement& st, int column, double& value) {
    value = st.real(column);
}
inline void readOne(const Statement& st, int column, bool& flag) {
    flag = st.int64(column) != 0;
}
template <typename T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) void readOne(const Statement& st,
                                                                         int column, T& value) {
    value = static_cast<T>(st.int64(column));
}
inline void readOne(const Statement& st, int column, OrNaN field) {
    *field.value = st.realOrNaN(column);
}

}  // namespace row_fields

// Binds `fields` to the parameters `first`, first + 1, ...
template <typename... F>
Statement& bindFields(Statement& st, int first, const std::tuple<F...>& fields) {
    std::apply([&](const auto&... field) { (row_fields::bindOne(st, first++, field), ...); },
               fields);
    return st;
}

// Reads the current row's columns `first`, first + 1, ... into `fields` (std::tie or fields()).
template <typename... F>
void readFields(const Statement& st, int first, const std::tuple<F...>& fields) {
    std::apply([&](auto&&... field) { (row_fields::readOne(st, first++, field), ...); }, fields);
}

// Inserts `rows` into `table` as (`key` = keyValue, ordinal = i, `columns`): the ordered rows a
// run or a dataset owns. `fieldsOf(row)` gives a row's fields in the order of `columns`.
template <typename Rows, typename FieldsOf>
void insertOrdered(Database& db, std::string_view table, std::string_view key, int64_t keyValue,
                   std::string_view columns, const Rows& rows, FieldsOf fieldsOf) {
    if (rows.empty()) return;
    const std::size_t count = std::tuple_size_v<decltype(fieldsOf(*rows.begin()))>;
    std::string sql = "INSERT INTO " + std::string(table) + "(" + std::string(key) + ", ordinal, " +
                      std::string(columns) + ") VALUES(?1, ?2";
    for (std::size_t i = 0; i < count; ++i)
        sql += ", ?" + std::to_string(i + 3);
    sql += ")";
    auto st = db.prepare(sql);
    st.bind(1, keyValue);
    uint64_t ordinal = 0;
    for (const auto& row : rows)
        bindFields(st.bindU64(2, ordinal++), 3, fieldsOf(row)).run();
}

// The statement reading back what insertOrdered wrote: `columns` of the rows of `table` whose
// `key` is keyValue, in their order. Step it and read each row with readFields(st, 0, ...).
inline Statement selectOrdered(const Database& db, std::string_view table, std::string_view key,
                               int64_t keyValue, std::string_view columns) {
    auto st = db.prepare("SELECT " + std::string(columns) + " FROM " + std::string(table) +
                         " WHERE " + std::string(key) + " = ?1 ORDER BY ordinal");
    st.bind(1, keyValue);
    return st;
}

}  // namespace neardup::sql
