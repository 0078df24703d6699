// Listing the inputs' fields for the dataset panel, and the warning about a text field that
// some input lacks. Plain Qt data, so it runs on the panel's job queue.
#include "fieldlisting.h"

#include <QFileInfo>
#include <QObject>
#include <exception>

#include "input_fields.h"

namespace neardup::ui {

using Kind = columnar::FieldInfo::Kind;

const ListedField* InputFieldList::find(const QString& path) const {
    for (const ListedField& f : fields)
        if (f.path == path) return &f;
    return nullptr;
}

namespace {

// The paths of `fields` whose kind `first` accepts, then the rest.
template <typename Accept>
QStringList orderedChoices(const QList<ListedField>& fields, Accept first) {
    QStringList front, back;
    for (const ListedField& f : fields)
        (first(f.kind) ? front : back) << f.path;
    return front + back;
}

}  // namespace

QStringList InputFieldList::textChoices() const {
    return orderedChoices(fields, [](Kind k) { return k == Kind::String; });
}

QStringList InputFieldList::idChoices() const {
    return orderedChoices(fields, [](Kind k) { return k == Kind::String || k == Kind::Integer; });
}

QStringList InputFieldList::filesWithout(const QString& path) const {
    QStringList out;
    for (qsizetype i = 0; i < files.size(); ++i)
        if (!fileFields[i].contains(path)) out << files[i];
    return out;
}

InputFieldList listInputFields(const std::vector<InputFile>& files, int maxFiles) {
    InputFieldList out;
    const std::size_t listed = std::min(files.size(), std::size_t(std::max(maxFiles, 0)));
    out.unlisted = int(files.size() - listed);
    for (std::size_t i = 0; i < listed; ++i) {
        const QString name = QString::fromStdString(files[i].path);
        FieldListing listing;
        try {
            listing = inputFields(files[i]);
        } catch (const std::exception& e) {
            out.errors << QString::fromUtf8(e.what());
            continue;
        }
        QSet<QString> paths;
        for (const columnar::FieldInfo& info : listing.fields) {
            const QString path = QString::fromStdString(info.path);
            const QString type = QString::fromStdString(info.type);
            paths.insert(path);
            qsizetype at = -1;
            for (qsizetype j = 0; j < out.fields.size() && at < 0; ++j)
                if (out.fields[j].path == path) at = j;
            if (at < 0) {
                out.fields.append(ListedField{path, {}, info.kind, 0});
                at = out.fields.size() - 1;
            }
            ListedField& field = out.fields[at];
            // JSON Lines types come joined ("string | null"): merged type by type, so that
            // shards seeing "string" and "string | null" show "string | null".
            for (const QString& part : type.split(QStringLiteral(" | ")))
                if (!field.types.contains(part)) field.types << part;
            if (info.kind == Kind::String || field.kind == Kind::Other) field.kind = info.kind;
            ++field.files;
        }
        out.files << name;
        out.fileFields << paths;
    }
    return out;
}

QString textFieldWarning(const InputFieldList& list, const QString& textField) {
    if (list.files.isEmpty() || textField.isEmpty()) return {};
    const QStringList without = list.filesWithout(textField);
    if (!without.isEmpty()) {
        QStringList names;
        for (const QString& f : without.mid(0, 3))
            names << QFileInfo(f).fileName();
        if (without.size() > 3) names << QObject::tr("\u2026");
        return QObject::tr(
                   "No field \u201c%1\u201d in %2 of %3 listed input file(s) (%4): their "
                   "records would all be rejected as missing_text.")
            .arg(textField)
            .arg(without.size())
            .arg(list.files.size())
            .arg(names.join(QStringLiteral(", ")));
    }
    const ListedField* field = list.find(textField);
    if (field && field->kind != Kind::String)
        return QObject::tr(
                   "Field \u201c%1\u201d holds %2, not text: its records would be "
                   "rejected as text_not_string.")
            .arg(textField, field->types.join(QStringLiteral(" | ")));
    return {};
}

}  // namespace neardup::ui
