// `neardup completion bash|zsh`: the scripts are generated from the command line's definition,
// so completing in a real bash offers every subcommand and, for each, every option its --help
// lists; the zsh script is valid zsh naming every subcommand.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "test_support.h"

class TestCompletion : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString bashScript_;

    // What the CLI prints on stdout.
    static QString neardup(const QStringList& args) {
        return testsupport::neardup(args, testsupport::CliOptions().withTimeout(60000)).out;
    }

    // Loads the bash script and completes `words` (the last one being completed) in bash
    // itself; returns COMPREPLY.
    QStringList complete(const QStringList& words) const {
        QString array;
        for (const QString& w : words)
            array += QLatin1Char('\'') + w + QStringLiteral("' ");
        const QString script = QStringLiteral(
                                   "source '%1'; COMP_WORDS=(%2); COMP_CWORD=%3; _neardup; "
                                   "printf '%s\\n' \"${COMPREPLY[@]}\"")
                                   .arg(bashScript_, array)
                                   .arg(words.size() - 1);
        QProcess bash;
        bash.setWorkingDirectory(dir_.path());
        bash.start(QStringLiteral("bash"),
                   {QStringLiteral("--norc"), QStringLiteral("-c"), script});
        bash.waitForFinished(30000);
        return QString::fromUtf8(bash.readAllStandardOutput())
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    static QStringList subcommands() {
        const QString help = neardup({QStringLiteral("--help")});
        const QString list = help.mid(help.indexOf(QStringLiteral("Subcommands:")));
        QStringList names;
        const QRegularExpression line(QStringLiteral("^  ([a-z]+)\\s"),
                                      QRegularExpression::MultilineOption);
        for (auto it = line.globalMatch(list); it.hasNext();)
            names << it.next().captured(1);
        return names;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        bashScript_ = dir_.path() + QStringLiteral("/neardup.bash");
        QFile f(bashScript_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(neardup({QStringLiteral("completion"), QStringLiteral("bash")}).toUtf8());
        f.close();
        QFile(dir_.path() + QStringLiteral("/corpus.jsonl")).open(QIODevice::WriteOnly);
    }

    void bashOffersEverySubcommand() {
        const QStringList names = subcommands();
        QVERIFY2(names.size() >= 9, qPrintable(names.join(QLatin1Char(' '))));
        const QStringList offered = complete({QStringLiteral("neardup"), QString()});
        for (const QString& n : names)
            QVERIFY2(offered.contains(n), qPrintable(n));
        QCOMPARE(complete({QStringLiteral("neardup"), QStringLiteral("ru")}),
                 QStringList{QStringLiteral("run")});
    }

    void bashOffersEveryOptionOfEverySubcommand() {
        const QRegularExpression option(QStringLiteral("(?:^|[ ,])(--?[A-Za-z][A-Za-z0-9-]*)"));
        for (const QString& sub : subcommands()) {
            const QString help = neardup({sub, QStringLiteral("--help")});
            const QString optionsPart = help.mid(help.indexOf(QStringLiteral("Options:")));
            QStringList listed;
            for (const QString& line : optionsPart.split(QLatin1Char('\n'))) {
                // Option names start a line of the Options section: "  -p,--project TEXT ..."
                if (!line.startsWith(QStringLiteral("  -"))) continue;
                const QString names = line.trimmed().section(QLatin1Char(' '), 0, 0);
                for (auto it = option.globalMatch(names); it.hasNext();)
                    listed << it.next().captured(1);
            }
            QVERIFY2(!listed.isEmpty(), qPrintable(sub));
            const QStringList offered =
                complete({QStringLiteral("neardup"), sub, QStringLiteral("-")});
            for (const QString& o : listed)
                QVERIFY2(offered.contains(o), qPrintable(sub + QLatin1Char(' ') + o));
        }
        QCOMPARE(
            complete({QStringLiteral("neardup"), QStringLiteral("run"), QStringLiteral("--proj")}),
            QStringList{QStringLiteral("--project")});
        // After an option taking a value, and for positional inputs: files.
        QCOMPARE(
            complete({QStringLiteral("neardup"), QStringLiteral("run"), QStringLiteral("corp")}),
            QStringList{QStringLiteral("corpus.jsonl")});
        QCOMPARE(complete({QStringLiteral("neardup"), QStringLiteral("run"),
                           QStringLiteral("--out-kept"), QStringLiteral("corp")}),
                 QStringList{QStringLiteral("corpus.jsonl")});
    }

    void zshScriptIsValidAndComplete() {
        const QString script = neardup({QStringLiteral("completion"), QStringLiteral("zsh")});
        QVERIFY(script.startsWith(QStringLiteral("#compdef neardup\n")));
        for (const QString& n : subcommands())
            QVERIFY2(script.contains(QStringLiteral("\n        ") + n + QStringLiteral(")\n")),
                     qPrintable(n));
        QVERIFY(script.contains(QStringLiteral("'--memory-budget[")));
        QProcess zsh;
        zsh.start(QStringLiteral("zsh"), {QStringLiteral("-n")});
        if (!zsh.waitForStarted(10000)) QSKIP("zsh is not installed (scripts/install-deps.sh)");
        zsh.write(script.toUtf8());
        zsh.closeWriteChannel();
        QVERIFY(zsh.waitForFinished(30000));
        QVERIFY2(zsh.exitCode() == 0, zsh.readAllStandardError().constData());
    }

    void unknownShellIsAUsageError() {
        const testsupport::CliResult r =
            testsupport::neardup({QStringLiteral("completion"), QStringLiteral("fish")},
                                 testsupport::CliOptions().withTimeout(30000));
        QCOMPARE(r.code, 2);
    }
};

QTEST_GUILESS_MAIN(TestCompletion)
#include "test_completion.moc"
