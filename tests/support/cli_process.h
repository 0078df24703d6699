// The `neardup` CLI as a child process, for the tests that drive it from the outside: one way
// to start it, wait for it and collect its exit code and output.
#pragma once

#include <QString>
#include <QStringList>
#include <functional>

namespace testsupport {

struct CliResult {
    int code = -1;  // the exit code; -1 when it crashed, was killed or did not finish in time
    QString out, err;
};

// How to run it; set with the chained setters: CliOptions().inFolder(dir).withTimeout(60000).
struct CliOptions {
    QString cwd;  // working directory; empty: the test's own
    // Runs in the child between fork and exec (resource limits, signal dispositions).
    std::function<void()> childSetup;
    int timeoutMs = 300000;
    // The child's stderr goes straight to the test's (long runs that report progress);
    // CliResult::err stays empty then.
    bool forwardStderr = false;

    CliOptions& inFolder(QString dir) {
        cwd = std::move(dir);
        return *this;
    }
    CliOptions& withChildSetup(std::function<void()> setup) {
        childSetup = std::move(setup);
        return *this;
    }
    CliOptions& withTimeout(int ms) {
        timeoutMs = ms;
        return *this;
    }
    CliOptions& forwardingStderr() {
        forwardStderr = true;
        return *this;
    }
};

// The binary under test: NEARDUP_CLI when set (to run the tests against another build, e.g. to
// show that a fix is needed), else the one built beside the tests.
QString cliPath();

// Runs `neardup args...` to its end (or options.timeoutMs).
CliResult neardup(const QStringList& args, const CliOptions& options = {});

}  // namespace testsupport
