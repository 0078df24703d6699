// What the workbench tests share (test_ui_workbench.cpp, test_ui_workbench_audit.cpp): small
// file readers, the GUI thread's CPU time, and generated corpora. Included only in GUI builds.
#pragma once

#include <QFile>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <ctime>
#include <string>

#include "engine_fixture.h"
#include "project_queries.h"

namespace uiworkbench {

int countLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    int n = 0;
    while (!f.atEnd()) {
        f.readLine();
        ++n;
    }
    return n;
}

QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QStringList lines;
    while (!f.atEnd())
        lines << QString::fromUtf8(f.readLine()).trimmed();
    return lines;
}

// CPU time used by the calling thread, in milliseconds.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

void writeCorpus(const std::string& path, uint64_t docs, uint64_t seed) {
    testsupport::writeGeneratedCorpus(path, {.documents = docs, .seed = seed, .meanChars = 700});
}

// The pair the clusters panel shows first: the first stored pair of a removed member and the
// kept document it is removed for (its witness), else the first pair.
std::size_t witnessPairIndex(const std::vector<neardup::ClusterMember>& members,
                             const std::vector<neardup::PairRow>& pairs) {
    for (std::size_t i = 0; i < pairs.size(); ++i)
        for (const auto& m : members)
            if ((m.docIndex == pairs[i].a && m.removedFor == int64_t{pairs[i].b}) ||
                (m.docIndex == pairs[i].b && m.removedFor == int64_t{pairs[i].a}))
                return i;
    return 0;
}

}  // namespace uiworkbench

using namespace uiworkbench;
