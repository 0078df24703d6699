#include "run_accounting.h"

#include <stdexcept>

namespace neardup {

std::string accountingText(const RunResult& run) {
    const RunCounts& c = run.counts;
    std::string s = std::to_string(c.linesRead) + " line(s) read: " + std::to_string(c.documents) +
                    " document(s), " + std::to_string(c.rejected) + " rejected";
    if (!run.rejections.empty()) {
        s += " (";
        for (std::size_t i = 0; i < run.rejections.size(); ++i) {
            const RejectionCount& r = run.rejections[i];
            if (i) s += ", ";
            s += r.reason + " " + std::to_string(r.count) + ", first at " + r.firstFile + ":" +
                 std::to_string(r.firstLine);
            if (!r.firstDetail.empty()) s += " (" + r.firstDetail + ")";
        }
        s += ")";
    }
    s += ", " + std::to_string(c.blankLines) + " blank";
    if (c.documents == 0 && c.rejected > 0)
        s += "; check --text-field ('" + run.params.reader.textField + "') and the input format";
    return s;
}

void checkAccounting(const RunResult& run) {
    const RunCounts& c = run.counts;
    if (c.documents + c.rejected + c.blankLines != c.linesRead)
        throw std::runtime_error("internal error: documents (" + std::to_string(c.documents) +
                                 ") + rejected (" + std::to_string(c.rejected) + ") + blank (" +
                                 std::to_string(c.blankLines) + ") != lines read (" +
                                 std::to_string(c.linesRead) + ")");
    if (c.referenceDocuments + c.kept + c.removed != c.documents)
        throw std::runtime_error("internal error: reference + kept + removed != documents");
}

}  // namespace neardup
