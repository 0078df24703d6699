// The documentation holds together: every relative link of every Markdown file in the repository
// leads to a file (and to a heading, when it names one); the command-line reference generated from
// the CLI's definition names every command and option that --help lists, and the checked-in
// docs/reference/cli.md is that generated text; the documentation index lists every page; the
// README stays a README (short, its two fresh-machine commands first); the guide and reference
// pages say what is, not when it changed.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include "test_support.h"

namespace {

const QString kSource = QStringLiteral(NEARDUP_SOURCE_DIR);

QString readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return QString();
    return QString::fromUtf8(f.readAll());
}

// Markdown without its fenced code blocks and inline code spans, where "[a](b)" is not a link.
QString withoutCode(const QString& markdown) {
    QString out;
    bool fenced = false;
    for (const QString& line : markdown.split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1String("```"))) {
            fenced = !fenced;
            out += QLatin1Char('\n');
            continue;
        }
        if (!fenced) out += line + QLatin1Char('\n');
    }
    static const QRegularExpression span(QStringLiteral("`[^`\n]*`"));
    return out.replace(span, QStringLiteral("``"));
}

// The anchors GitHub gives a file's headings: lowercase; letters, digits, '-' and '_' kept;
// spaces to '-'; a repeated heading gets -1, -2, ...
QSet<QString> anchorsOf(const QString& markdown) {
    QSet<QString> anchors;
    QHash<QString, int> seen;
    static const QRegularExpression heading(QStringLiteral("^#{1,6}\\s+(.*?)\\s*#*\\s*$"));
    static const QRegularExpression drop(QStringLiteral("[^\\p{L}\\p{M}\\p{N}_\\- ]"));
    bool fenced = false;
    for (const QString& line : markdown.split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1String("```"))) fenced = !fenced;
        if (fenced) continue;
        const QRegularExpressionMatch m = heading.match(line);
        if (!m.hasMatch()) continue;
        QString a = m.captured(1).toLower();
        a.remove(drop);
        a.replace(QLatin1Char(' '), QLatin1Char('-'));
        const int n = seen.value(a, 0);
        seen[a] = n + 1;
        anchors.insert(n == 0 ? a : a + QLatin1Char('-') + QString::number(n));
    }
    return anchors;
}

// Every Markdown file of the repository, outside hidden folders and build trees.
QStringList markdownFiles() {
    QStringList files;
    QDirIterator it(kSource, {QStringLiteral("*.md")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString rel = QDir(kSource).relativeFilePath(path);
        bool skip = false;
        for (const QString& part : rel.split(QLatin1Char('/')).mid(0, rel.count(QLatin1Char('/'))))
            if (part.startsWith(QLatin1Char('.')) || part.startsWith(QLatin1String("build")))
                skip = true;
        if (!skip) files << path;
    }
    files.sort();
    return files;
}

QString neardup(const QStringList& args) {
    const testsupport::CliResult r =
        testsupport::neardup(args, testsupport::CliOptions().withTimeout(60000));
    return r.out;
}

QStringList subcommands() {
    const QString help = neardup({QStringLiteral("--help")});
    const QString list = help.mid(help.indexOf(QStringLiteral("Subcommands:")));
    QStringList names;
    static const QRegularExpression line(QStringLiteral("^  ([a-z-]+)\\s"),
                                         QRegularExpression::MultilineOption);
    for (auto it = line.globalMatch(list); it.hasNext();)
        names << it.next().captured(1);
    return names;
}

// The option names a --help text lists: each line of its option sections that starts with one.
QStringList listedOptions(const QString& help) {
    QStringList names;
    static const QRegularExpression name(QStringLiteral("(?:^|[ ,])(--?[A-Za-z][A-Za-z0-9-]*)"));
    const QString options = help.mid(help.indexOf(QStringLiteral("Options:")));
    for (const QString& line : options.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1String("  -"))) continue;
        const QString head = line.simplified().section(QLatin1Char(' '), 0, 0);
        for (auto it = name.globalMatch(head); it.hasNext();)
            names << it.next().captured(1);
    }
    return names;
}

}  // namespace

class TestDocs : public QObject {
    Q_OBJECT
    QString reference_;

  private slots:
    void initTestCase() {
        reference_ = neardup({QStringLiteral("cli-reference")});
        QVERIFY2(reference_.startsWith(QStringLiteral("# `neardup` command-line reference")),
                 qPrintable(reference_.left(200)));
    }

    void everyRelativeLinkResolves() {
        const QStringList files = markdownFiles();
        QVERIFY2(files.size() >= 15, qPrintable(files.join(QLatin1Char(' '))));
        QHash<QString, QSet<QString>> anchorCache;
        auto anchors = [&anchorCache](const QString& path) -> const QSet<QString>& {
            auto it = anchorCache.find(path);
            if (it == anchorCache.end()) it = anchorCache.insert(path, anchorsOf(readText(path)));
            return *it;
        };
        static const QRegularExpression link(
            QStringLiteral("\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)"));
        static const QRegularExpression scheme(QStringLiteral("^[a-zA-Z][a-zA-Z0-9+.-]*:"));
        QStringList broken;
        int checked = 0;
        for (const QString& file : files) {
            const QString text = withoutCode(readText(file));
            const QString rel = QDir(kSource).relativeFilePath(file);
            for (auto it = link.globalMatch(text); it.hasNext();) {
                const QString target = it.next().captured(1);
                if (scheme.match(target).hasMatch()) continue;  // http:, mailto:, ...
                const QString path = target.section(QLatin1Char('#'), 0, 0);
                const QString fragment = target.section(QLatin1Char('#'), 1);
                const QString resolved =
                    path.isEmpty()
                        ? file
                        : QDir::cleanPath(QFileInfo(file).absolutePath() + QLatin1Char('/') + path);
                ++checked;
                if (!QFileInfo::exists(resolved)) {
                    broken << rel + QStringLiteral(": ") + target +
                                  QStringLiteral(" (no such file)");
                    continue;
                }
                if (!fragment.isEmpty() && resolved.endsWith(QLatin1String(".md")) &&
                    !anchors(resolved).contains(fragment))
                    broken << rel + QStringLiteral(": ") + target +
                                  QStringLiteral(" (no such heading)");
            }
        }
        QVERIFY2(checked > 100, qPrintable(QString::number(checked)));
        QVERIFY2(broken.isEmpty(), qPrintable(broken.join(QLatin1Char('\n'))));
    }

    // The documentation index (docs/README.md, what Help > User Guide opens) links every page
    // under docs/, so that a page moved or added is listed where readers look for it.
    void theIndexListsEveryPage() {
        const QString docs = kSource + QStringLiteral("/docs");
        const QString index = withoutCode(readText(docs + QStringLiteral("/README.md")));
        static const QRegularExpression link(QStringLiteral("\\]\\(\\s*<?([^)\\s>#]+)"));
        QSet<QString> linked;
        for (auto it = link.globalMatch(index); it.hasNext();)
            linked.insert(QDir::cleanPath(docs + QLatin1Char('/') + it.next().captured(1)));
        QStringList unlisted;
        QDirIterator it(docs, {QStringLiteral("*.md")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString page = QDir::cleanPath(it.next());
            if (page != QDir::cleanPath(docs + QStringLiteral("/README.md")) &&
                !linked.contains(page))
                unlisted << QDir(kSource).relativeFilePath(page);
        }
        QVERIFY2(linked.size() >= 15, qPrintable(QString::number(linked.size())));
        QVERIFY2(unlisted.isEmpty(), qPrintable(unlisted.join(QLatin1Char(' '))));
    }

    // A broken link is caught: the checker sees links outside code and computes GitHub's anchors.
    void theLinkCheckerSeesWhatGitHubSees() {
        const QString md = QStringLiteral(
            "# A `code` heading: (parens), 2026!\n## Repeated\n## Repeated\n"
            "see [x](a.md#b) and `[not](a link)`\n```\n[no](link)\n```\n");
        const QSet<QString> a = anchorsOf(md);
        QVERIFY(a.contains(QStringLiteral("a-code-heading-parens-2026")));
        QVERIFY(a.contains(QStringLiteral("repeated")));
        QVERIFY(a.contains(QStringLiteral("repeated-1")));
        const QString text = withoutCode(md);
        QVERIFY(text.contains(QStringLiteral("[x](a.md#b)")));
        QVERIFY(!text.contains(QStringLiteral("(a link)")));
        QVERIFY(!text.contains(QStringLiteral("[no](link)")));
    }

    void cliReferenceNamesEveryCommandAndOption() {
        const QStringList commands = subcommands();
        QVERIFY2(commands.size() >= 12, qPrintable(commands.join(QLatin1Char(' '))));
        QVERIFY(!commands.contains(QStringLiteral("cli-reference")));  // a build step, hidden
        for (const QString& option : listedOptions(neardup({QStringLiteral("--help")})))
            QVERIFY2(reference_.contains(QLatin1Char('`') + option + QLatin1Char('`')),
                     qPrintable(option));
        for (const QString& cmd : commands) {
            const QString heading = QStringLiteral("\n## neardup ") + cmd + QLatin1Char('\n');
            const qsizetype at = reference_.indexOf(heading);
            QVERIFY2(at >= 0, qPrintable(cmd));
            const qsizetype next = reference_.indexOf(QStringLiteral("\n## "), at + 1);
            const QString section = reference_.mid(at, next < 0 ? -1 : next - at);
            const QStringList options = listedOptions(neardup({cmd, QStringLiteral("--help")}));
            QVERIFY2(options.contains(QStringLiteral("--help")), qPrintable(cmd));
            for (const QString& option : options)
                QVERIFY2(section.contains(QLatin1Char('`') + option + QLatin1Char('`')),
                         qPrintable(cmd + QLatin1Char(' ') + option));
        }
    }

    void checkedInReferenceIsTheGeneratedOne() {
        const QString checkedIn = readText(kSource + QStringLiteral("/docs/reference/cli.md"));
        QVERIFY2(checkedIn == reference_,
                 "docs/reference/cli.md differs from `neardup cli-reference`: the command line "
                 "changed. Copy build/docs/reference/cli.md (written by the build) over it.");
    }

    void readmeIsShortWithTheFreshMachineCommandsFirst() {
        const QString readme = readText(kSource + QStringLiteral("/README.md"));
        QVERIFY2(readme.count(QLatin1Char('\n')) <= 300,
                 qPrintable(QString::number(readme.count(QLatin1Char('\n')))));
        const qsizetype block = readme.indexOf(QStringLiteral("```sh\n"));
        QVERIFY(block >= 0);
        const QString first =
            readme.mid(block, readme.indexOf(QStringLiteral("\n```"), block + 6) - block);
        QVERIFY2(first.contains(QStringLiteral("\n./scripts/demo.sh")), qPrintable(first));
        QVERIFY2(first.contains(QStringLiteral("\n./scripts/test.sh")), qPrintable(first));
        QVERIFY(QFileInfo(kSource + QStringLiteral("/scripts/demo.sh")).isExecutable());
        QVERIFY(QFileInfo(kSource + QStringLiteral("/scripts/test.sh")).isExecutable());
    }

    // History belongs in CHANGELOG.md and docs/archive/: no issue numbers or dated notes in the
    // README, the guide or the reference.
    void guidePagesSayWhatIsNotWhen() {
        QStringList pages{kSource + QStringLiteral("/README.md")};
        for (const QString& dir :
             {QStringLiteral("/docs/guide"), QStringLiteral("/docs/reference")})
            for (const QFileInfo& f :
                 QDir(kSource + dir).entryInfoList({QStringLiteral("*.md")}, QDir::Files))
                pages << f.absoluteFilePath();
        QVERIFY(pages.size() >= 12);
        static const QRegularExpression history(
            QStringLiteral("\\b[Ii]ssue \\d+|\\b20\\d\\d-\\d\\d-\\d\\d\\b|\\bstop \\d+\\b"));
        QStringList found;
        for (const QString& page : pages) {
            const QString text = readText(page);
            for (auto it = history.globalMatch(text); it.hasNext();) {
                const QRegularExpressionMatch m = it.next();
                found << QDir(kSource).relativeFilePath(page) + QStringLiteral(": ") +
                             text.mid(qMax<qsizetype>(0, m.capturedStart() - 40), 90).simplified();
            }
        }
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestDocs)
#include "test_docs.moc"
