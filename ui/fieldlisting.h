// The fields of a dataset's inputs for the dataset panel's text and id field choice: every
// listed file's fields (core's inputFields: Parquet columns with their Arrow types, JSON Lines
// keys with the JSON types seen), merged in order of first appearance, and which file lacks
// which, for the warning shown before a run whose text field some input does not have.
#pragma once

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "document_table.h"
#include "field_listing.h"

namespace neardup::ui {

struct ListedField {
    QString path;
    QStringList types;  // each distinct type the listed files give it, in order seen
    columnar::FieldInfo::Kind kind = columnar::FieldInfo::Kind::Other;  // String if any file's is
    int files = 0;                                                      // listed files having it
};

struct InputFieldList {
    QList<ListedField> fields;        // union over the listed files, in order of first appearance
    QStringList files;                // the files listed (their fields are known)
    QList<QSet<QString>> fileFields;  // per listed file, the paths it has
    int unlisted = 0;                 // input files beyond the listing's limit, not listed
    QStringList errors;               // per file that could not be listed: why (naming it)

    const ListedField* find(const QString& path) const;
    // The text field's choices: string-typed fields first, then the others, each in order.
    QStringList textChoices() const;
    // The id field's choices: string and integer fields first, then the others.
    QStringList idChoices() const;
    // The listed files without `path`.
    QStringList filesWithout(const QString& path) const;
};

// How many input files are listed: a folder of thousands of shards is listed by its first ones
// (a Parquet footer or a few hundred lines each), which is what the choice needs.
inline constexpr int kMaxListedFiles = 32;

// Lists the fields of the first `maxFiles` of `files`. Runs on a worker thread; never throws (a
// file that cannot be listed goes into `errors`).
InputFieldList listInputFields(const std::vector<InputFile>& files, int maxFiles);

// What the panel warns about the text field before a run, or empty: listed files without the
// field (their records would all be rejected as missing_text), or a field that is no string in
// any listed file (text_not_string).
QString textFieldWarning(const InputFieldList& list, const QString& textField);

}  // namespace neardup::ui
