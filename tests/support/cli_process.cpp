// The `neardup` CLI as a child process (cli_process.h).
#include "cli_process.h"

#include <QProcess>

namespace testsupport {

QString cliPath() {
    return qEnvironmentVariable("NEARDUP_CLI", QStringLiteral(NEARDUP_CLI_PATH));
}

CliResult neardup(const QStringList& args, const CliOptions& options) {
    QProcess p;
    if (!options.cwd.isEmpty()) p.setWorkingDirectory(options.cwd);
    if (options.childSetup) p.setChildProcessModifier(options.childSetup);
    if (options.forwardStderr) p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.start(cliPath(), args);
    const bool finished = p.waitForFinished(options.timeoutMs);
    if (!finished) {  // never let a hung child pass for exit code 0
        p.kill();
        p.waitForFinished();
    }
    return {finished && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace testsupport
