// What the tests of users' files share (test_user_files*.cpp, test_fault_injection.cpp): a
// generated corpus in a private folder and the CLI run in it, small SQL and folder helpers.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <filesystem>
#include <initializer_list>
#include <string>

#include "test_support.h"

namespace userfiles {

namespace fs = std::filesystem;
using testsupport::q;

using Result = testsupport::CliResult;
using testsupport::CliOptions;
using testsupport::writeFile;

inline Result runCli(const QStringList& args, const std::string& cwd) {
    return testsupport::neardup(args, CliOptions().inFolder(q(cwd)));
}

using testsupport::sqlExec;

// Names in `dir` that look like an output's temporary (".NAME.tmp-PID").
inline QStringList temporaries(const std::string& dir) {
    QStringList found;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.find(".tmp-") != std::string::npos) found << q(name);
    }
    return found;
}

// What both test classes stand on: a private folder with a generated corpus of 600 documents
// (corpus.jsonl, truth.json) and `neardup run` on it.
class CorpusFixture : public QObject {
  protected:
    QTemporaryDir tmp_;
    std::string dir_;

    std::string path(const std::string& name) const { return dir_ + "/" + name; }

    // `neardup run corpus.jsonl -p project -q -j 2 extra...`, in `cwd` (default: the folder).
    Result run(const std::string& project, QStringList extra, const std::string& cwd = {}) {
        QStringList args{
            QStringLiteral("run"), q(path("corpus.jsonl")), QStringLiteral("-p"), q(project),
            QStringLiteral("-q"),  QStringLiteral("-j"),    QStringLiteral("2")};
        args << extra;
        return runCli(args, cwd.empty() ? dir_ : cwd);
    }

    // `neardup args...` in the folder, the arguments as written (files relative to the folder).
    Result command(std::initializer_list<std::string> args) const {
        QStringList list;
        for (const std::string& a : args)
            list << q(a);
        return runCli(list, dir_);
    }

    // Creates the folder and the corpus; the failed command's result otherwise.
    Result makeCorpus() {
        if (!tmp_.isValid()) return {-1, {}, QStringLiteral("no temporary folder")};
        dir_ = fs::canonical(tmp_.path().toStdString()).string();
        return runCli({QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("600"),
                       QStringLiteral("--seed"), QStringLiteral("5"), QStringLiteral("--out"),
                       q(path("corpus.jsonl")), QStringLiteral("--truth"), q(path("truth.json"))},
                      dir_);
    }
};

}  // namespace userfiles
