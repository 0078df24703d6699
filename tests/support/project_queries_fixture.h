// What the project queries' tests share (test_project_queries.cpp,
// test_project_queries_audit.cpp): a generated corpus of 600 documents in a private folder, one
// run on it with non-default bands, and what that run returned and stored, to check the queries
// against.
#pragma once

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <string>

#include "corpus_generator.h"
#include "engine_fixture.h"
#include "pipeline.h"

using namespace neardup;

class ProjectQueriesFixture : public QObject {
  protected:
    QTemporaryDir dir_;
    std::string corpus_, project_;
    GroundTruth truth_;
    RunResult run_;

    uint64_t clusteredCount() const {
        return uint64_t(std::count_if(run_.clusterOf.begin(), run_.clusterOf.end(),
                                      [](uint32_t c) { return c != RunResult::kNoCluster; }));
    }
    DocumentTable docs_;
    DatasetRecord dataset_;

    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    // The corpus and the run every query is checked against (each test class's initTestCase).
    void makeCorpusAndRun() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        project_ = path("fixture.ndw");
        truth_ = testsupport::writeGeneratedCorpus(
            corpus_, {.documents = 600, .seed = 11, .meanChars = 800});
        ProjectStore store(project_);
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend);
        RunParams params;
        params.compare.threshold = 0.7;
        params.lsh.bands = 16;  // not the defaults, so that the round trip shows
        params.lsh.rows = 8;
        run_ = pipeline.run({corpus_}, params);
        dataset_ = store.loadDataset(run_.datasetId, &docs_);
        QVERIFY(run_.counts.clusters > 10);
    }
};
