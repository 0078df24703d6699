// What the MPI job tests share (test_mpi.cpp, test_mpi_network.cpp): a process run to its end
// (or killed after `timeoutMs`) with its output, `neardup run` on the test's corpus with every
// list output, and a project's rows as one text, for comparing runs however they were spread.
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include "test_support.h"

namespace mpitest {

struct Result {
    int code = -1;
    QString out, err;
    qint64 ms = 0;
};

inline Result execute(const QString& program, const QStringList& args,
                      const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                      int timeoutMs = 180000) {
    QProcess p;
    p.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError()), timer.elapsed()};
}

// Every row of a query, one line each, columns separated by '|' (testsupport::sqlRows).
inline QString sqlRows(const QString& db, const char* sql) {
    QString rows;
    for (const QString& row : testsupport::sqlRows(db.toStdString(), sql))
        rows += row + QLatin1Char('\n');
    return rows;
}

// A project's runs, their pairs and cluster members: what must not depend on how a run was
// spread over ranks or hosts.
inline QString runResults(const QString& db) {
    return sqlRows(db,
                   "SELECT status, documents, kept, removed, clusters, candidate_pairs, "
                   "duplicate_pairs FROM runs ORDER BY id") +
           sqlRows(db, "SELECT a, b, matches, exact FROM pairs ORDER BY run_id, a, b") +
           sqlRows(db, "SELECT doc_index, cluster FROM cluster_members ORDER BY run_id, doc_index");
}

// The list outputs runArgs asks for, each under the run's folder.
struct ListOutput {
    const char* flag;
    const char* file;
};
inline constexpr ListOutput kOutputs[] = {{"--out-kept", "kept.txt"},
                                          {"--out-removed", "removed.txt"},
                                          {"--out-clusters", "clusters.jsonl"},
                                          {"--out-jsonl", "dedup.jsonl"}};

// `neardup run corpus.jsonl` of `dir` on one thread of the CPU backend into project
// `name`.ndw, with the outputs of kOutputs under `name`/.
inline QStringList runArgs(const QTemporaryDir& dir, const QString& name) {
    QDir(dir.path()).mkpath(name);
    QStringList args{QStringLiteral("run"),       dir.filePath(QStringLiteral("corpus.jsonl")),
                     QStringLiteral("-p"),        dir.filePath(name + QStringLiteral(".ndw")),
                     QStringLiteral("-j"),        QStringLiteral("1"),
                     QStringLiteral("--backend"), QStringLiteral("cpu")};
    for (const ListOutput& out : kOutputs)
        args << QLatin1String(out.flag)
             << dir.filePath(name + QLatin1Char('/') + QLatin1String(out.file));
    return args;
}

}  // namespace mpitest
