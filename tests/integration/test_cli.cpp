// The mlstudio command line as users run it: validate, run (with --logs, --job-name),
// show/metrics/list JSON, ranks' devices in show, Slurm jobs in show and list, logs, export, stop
// from another process, Ctrl-C, exit codes.
#include "engine/control/studio_home.h"
#include "engine/store/store_writer.h"
#include "tests/support/mlstudio_cli.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_specs;

    MlstudioCli m_cli{m_home.path()};

    QString writeSpec(const char* name, const nlohmann::json& doc) {
        const QString path = m_specs.path() + QLatin1Char('/') + QLatin1String(name);
        std::ofstream(path.toStdString()) << doc.dump(2);
        return path;
    }

    void start(QProcess& p, const QStringList& args) { QVERIFY(m_cli.start(p, args)); }
    CliResult run(const QStringList& args, int timeoutMs = 60000) {
        return m_cli.run(args, timeoutMs);
    }

    nlohmann::json runJson(const QStringList& args) {
        CliResult r = run(args);
        if (r.code != 0)
            qWarning() << r.err;
        return nlohmann::json::parse(r.out.toStdString());
    }

    static nlohmann::json sleeper(const char* name) {
        return {{"name", name}, {"entry_point", {"/bin/sh", "-c", "echo ready; exec sleep 60"}}};
    }

    // The Slurm jobs test's data: a job on a Slurm cluster as its runner records it (no Slurm
    // needed; its first Slurm job lost its node, the resubmitted one waits for resources) and a
    // local job beside it.
    void writeSlurmJobs(double t0, const std::string& script) {
        using namespace studio;
        store::StoreWriter w(control::databasePath(m_home.path().toStdString()));
        store::NewComponent c;
        c.name = "cli-slurm-job";
        c.experiment = "cli-slurm";
        c.cluster = "hpc";
        c.created = t0;
        c.secondaryStatus = "Pending";
        c.owner = control::processOwnerId(); // followed (by this test): no CLI takes it over
        const store::ComponentId id = w.createComponent(c);
        w.setStatus(id, "InProgress", "Pending", "Slurm job 4101 is pending: Resources", t0 + 70);
        w.upsertSlurmJob(id, {4100, 1, "hpc", "gpu", "NODE_FAIL", "None", "h1", 0, 1, t0 + 1,
                              t0 + 2, t0 + 60, t0 + 61, "#!/bin/bash\necho first\n"});
        w.upsertSlurmJob(id, {4101, 2, "hpc", "gpu", "PENDING", "Resources", "", 0, std::nullopt,
                              t0 + 65, 0, 0, t0 + 70, script});
        c.name = "cli-slurm-local";
        c.cluster = "local";
        c.created = t0 - 10;
        c.secondaryStatus = "Completed";
        const store::ComponentId local = w.createComponent(c);
        w.setStatus(local, "Completed", "Completed", "", t0 - 5);
        w.setEnded(local, t0 - 5);
    }

    // show --json carries both Slurm jobs with their scripts.
    void checkSlurmJobsJson(double t0, const std::string& script) {
        auto show = runJson(
            {QStringLiteral("show"), QStringLiteral("cli-slurm-job"), QStringLiteral("--json")});
        QCOMPARE(show["secondary_status"], "Pending");
        QCOMPARE(show["slurm_jobs"].size(), std::size_t(2));
        const auto& lost = show["slurm_jobs"][0];
        QCOMPARE(lost["job_id"].get<std::int64_t>(), std::int64_t(4100));
        QCOMPARE(lost["state"], "NODE_FAIL");
        QCOMPARE(lost["nodes"], "h1");
        QCOMPARE(lost["exit_code"].get<int>(), 1);
        QCOMPARE(lost["ended"].get<double>(), t0 + 60);
        const auto& pending = show["slurm_jobs"][1];
        QCOMPARE(pending["attempt"].get<int>(), 2);
        QCOMPARE(pending["cluster"], "hpc");
        QCOMPARE(pending["partition"], "gpu");
        QCOMPARE(pending["state"], "PENDING");
        QCOMPARE(pending["reason"], "Resources");
        QCOMPARE(pending["restarts"].get<int>(), 0);
        QVERIFY(pending["exit_code"].is_null() && pending["started"].is_null());
        QCOMPARE(pending["script"].get<std::string>(), script);
    }

    // show prints both Slurm jobs; --script prints the newest script, only for a Slurm job.
    void checkSlurmJobsText(const std::string& script) {
        const CliResult text = run({QStringLiteral("show"), QStringLiteral("cli-slurm-job")});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(QStringLiteral("\nSlurm        cluster hpc")),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains(
                     QRegularExpression(QStringLiteral("\n  4100 +1  gpu +NODE_FAIL +h1 +0 +1  "))),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains(QRegularExpression(
                     QStringLiteral("\n  4101 +2  gpu +PENDING \\(Resources\\) +- +0 +-  "))),
                 qPrintable(text.out));

        const CliResult batch = run(
            {QStringLiteral("show"), QStringLiteral("cli-slurm-job"), QStringLiteral("--script")});
        QCOMPARE(batch.code, 0);
        QCOMPARE(batch.out, QString::fromStdString(script));
        const CliResult noScript = run({QStringLiteral("show"), QStringLiteral("cli-slurm-local"),
                                        QStringLiteral("--script")});
        QCOMPARE(noScript.code, 1);
        QVERIFY2(noScript.err.contains(QStringLiteral("did not run on Slurm")),
                 qPrintable(noScript.err));
        QCOMPARE(run({QStringLiteral("show"), QStringLiteral("cli-slurm-job"),
                      QStringLiteral("--script"), QStringLiteral("--json")})
                     .code,
                 2);
    }

    // list names the cluster and the pending reason; --json leaves the scripts out.
    void checkSlurmJobsList() {
        const CliResult list = run({QStringLiteral("list"), QStringLiteral("jobs"),
                                    QStringLiteral("--experiment"), QStringLiteral("cli-slurm")});
        QCOMPARE(list.code, 0);
        QVERIFY2(
            list.out.contains(QRegularExpression(QStringLiteral(" CLUSTER +SLURM +EXPERIMENT\n"))),
            qPrintable(list.out));
        QVERIFY2(list.out.contains(QRegularExpression(
                     QStringLiteral("\ncli-slurm-job .* hpc +4101 \\(Resources\\) +cli-slurm\n"))),
                 qPrintable(list.out));
        QVERIFY2(list.out.contains(QRegularExpression(
                     QStringLiteral("\ncli-slurm-local .* local +- +cli-slurm\n"))),
                 qPrintable(list.out));
        auto jobs =
            runJson({QStringLiteral("list"), QStringLiteral("jobs"), QStringLiteral("--json"),
                     QStringLiteral("--experiment"), QStringLiteral("cli-slurm")});
        QCOMPARE(jobs.size(), std::size_t(2));
        for (const auto& j : jobs) {
            if (j["name"] == "cli-slurm-local") {
                QVERIFY(j["slurm_job"].is_null());
                continue;
            }
            QCOMPARE(j["slurm_job"]["job_id"].get<std::int64_t>(), std::int64_t(4101));
            QCOMPARE(j["slurm_job"]["reason"], "Resources");
            QVERIFY(!j["slurm_job"].contains("script")); // lists leave scripts in the store
        }
    }

private Q_SLOTS:
    void validate() {
        const QString good = writeSpec("good.json", {{"entry_point", {"/bin/true"}}});
        CliResult ok = run({QStringLiteral("validate"), good});
        QCOMPARE(ok.code, 0);
        QVERIFY2(ok.out.startsWith(QStringLiteral("ok\nranks: torchrun: distribution.mpi is not "
                                                  "enabled")),
                 qPrintable(ok.out));
        // Which launcher a spec gets, and why: mpirun for a script with mpi alone.
        const QString mpi = writeSpec(
            "mpi.json",
            {{"entry_point", {"/usr/bin/python3", "x.py"}},
             {"distribution", {{"mpi", {{"enabled", true}, {"processes_per_host", 2}}}}}});
        CliResult viaMpirun = run({QStringLiteral("validate"), mpi});
        QCOMPARE(viaMpirun.code, 0);
        QVERIFY2(viaMpirun.out.contains(QStringLiteral("ranks: mpirun: distribution.mpi is enabled "
                                                       "for a script: one Open MPI mpirun starts "
                                                       "all 2 ranks (-np 2")),
                 qPrintable(viaMpirun.out));
        const QString bad = writeSpec(
            "bad.json",
            {{"entry_point", {"/bin/true"}},
             {"distribution", {{"mpi", {{"enabled", true}, {"processes_per_host", "two"}}}}},
             {"instance_cont", 2}});
        CliResult no = run({QStringLiteral("validate"), bad});
        QCOMPARE(no.code, 2);
        QVERIFY2(no.err.contains(QStringLiteral(
                     "distribution.mpi.processes_per_host: must be an integer >= 1, got \"two\"")),
                 qPrintable(no.err));
        QVERIFY(no.err.contains(
            QStringLiteral("instance_cont: unknown key, did you mean \"instance_count\"?")));
        // --set can repair it.
        CliResult fixed = run({QStringLiteral("validate"), bad, QStringLiteral("--set"),
                               QStringLiteral("distribution.mpi.processes_per_host=2"),
                               QStringLiteral("--set"), QStringLiteral("instance_count=1")});
        QCOMPARE(fixed.code, 2); // instance_cont is still unknown
        QVERIFY(!fixed.err.contains(QStringLiteral("processes_per_host")));
    }

    void runShowMetricsLogsExport() {
        const std::string script = "for i in 1 2 3 4 5; do echo \"step $i loss=0.$((10 - i))\"; "
                                   "done; echo \"rank $RANK done\" >&2";
        const QString spec = writeSpec(
            "run.json",
            {{"name", "cli-run"},
             {"entry_point", {"/bin/sh", "-c", script}},
             {"hyperparameters", {{"lr", 0.1}}},
             {"distribution",
              {{"torch_distributed", {{"enabled", true}}},
               {"mpi", {{"enabled", true}, {"processes_per_host", 2}}}}},
             {"metric_definitions", {{{"Name", "train:loss"}, {"Regex", "loss=([0-9.]+)"}}}},
             {"experiment_config", {{"ExperimentName", "cli-tests"}, {"TrialName", "t1"}}}});
        CliResult r = run({QStringLiteral("run"), spec, QStringLiteral("--logs")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("[0,0]<stdout>:step 1 loss=0.9")),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("[0,1]<stderr>:rank 1 done")));
        QVERIFY(r.err.contains(QStringLiteral("Completed")));

        auto show =
            runJson({QStringLiteral("show"), QStringLiteral("cli-run"), QStringLiteral("--json")});
        QCOMPARE(show["status"], "Completed");
        QCOMPARE(show["experiment"], "cli-tests");
        QCOMPARE(show["trial"], "t1");
        QCOMPARE(show["parameters"]["lr"].get<double>(), 0.1);
        QCOMPARE(show["metrics"]["train:loss"]["count"].get<int>(), 5);
        QCOMPARE(show["metrics"]["train:loss"]["min"].get<double>(), 0.5);
        QCOMPARE(show["metrics"]["train:loss"]["last"].get<double>(), 0.5);
        QCOMPARE(show["ranks"].size(), std::size_t(2));
        QCOMPARE(show["exit_codes"]["1"].get<int>(), 0);
        QVERIFY(show["status_transitions"].size() >= 3);
        QVERIFY(show["started"].is_number() && show["ended"].is_number());
        QCOMPARE(show["failure_reason"], "");
        QCOMPARE(show["launcher"]["name"], "torchrun");
        QVERIFY(show["launcher"]["reason"].get<std::string>().find("torch_distributed") !=
                std::string::npos);

        auto points = runJson({QStringLiteral("metrics"), QStringLiteral("cli-run"),
                               QStringLiteral("train:loss"), QStringLiteral("--json")});
        QCOMPARE(points.size(), std::size_t(5));
        QCOMPARE(points[0]["step"].get<int>(), 0);
        QCOMPARE(points[0]["value"].get<double>(), 0.9);
        QVERIFY(points[0]["time"].get<double>() > 1.7e9);
        QCOMPARE(points[0]["rank"].get<int>(), 0);
        CliResult missing =
            run({QStringLiteral("metrics"), QStringLiteral("cli-run"), QStringLiteral("nope")});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains(QStringLiteral("it has: train:loss")));

        CliResult logs = run({QStringLiteral("logs"), QStringLiteral("cli-run"),
                              QStringLiteral("--rank"), QStringLiteral("1")});
        QCOMPARE(logs.code, 0);
        const QStringList lines = logs.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 6);
        QCOMPARE(lines.first(), QStringLiteral("[0,1]<stdout>:step 1 loss=0.9"));
        QCOMPARE(lines.last(), QStringLiteral("[0,1]<stderr>:rank 1 done"));

        auto jobs =
            runJson({QStringLiteral("list"), QStringLiteral("jobs"), QStringLiteral("--json"),
                     QStringLiteral("--experiment"), QStringLiteral("cli-tests")});
        QCOMPARE(jobs.size(), std::size_t(1));
        CliResult exps = run({QStringLiteral("list"), QStringLiteral("experiments")});
        QVERIFY(exps.out.contains(QStringLiteral("cli-tests")));

        const QString csv = m_specs.path() + QStringLiteral("/out.csv");
        CliResult exported = run({QStringLiteral("export"), QStringLiteral("--experiment"),
                                  QStringLiteral("cli-tests"), QStringLiteral("--csv"), csv});
        QCOMPARE(exported.code, 0);
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY2(text.startsWith(QStringLiteral("TrialComponentName,DisplayName,")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("train:loss - StdDev")));
    }

    // Each rank reports its device once on its event fd, as studio-train does at its start; a
    // rank that reports none (a user's own script) shows "" in JSON and "-" in text.
    void showsEachRanksDevice() {
        const std::string script =
            "if [ \"$RANK\" = 1 ]; then echo '{\"v\":1,\"kind\":\"status\",\"state\":"
            "\"device\",\"message\":\"cuda:1 (Scripted GPU, 8.0 GiB)\"}' >&$STUDIO_EVENTS_FD; "
            "fi; echo trained";
        const QString spec = writeSpec(
            "devices.json", {{"name", "cli-devices"},
                             {"entry_point", {"/bin/sh", "-c", script}},
                             {"distribution",
                              {{"torch_distributed", {{"enabled", true}}},
                               {"mpi", {{"enabled", true}, {"processes_per_host", 2}}}}}});
        CliResult r = run({QStringLiteral("run"), spec});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        auto show = runJson(
            {QStringLiteral("show"), QStringLiteral("cli-devices"), QStringLiteral("--json")});
        QCOMPARE(show["ranks"].size(), std::size_t(2));
        QCOMPARE(show["ranks"][0]["device"], "");
        QCOMPARE(show["ranks"][1]["device"], "cuda:1 (Scripted GPU, 8.0 GiB)");
        QCOMPARE(show["ranks"][1]["exit_code"].get<int>(), 0); // its exit kept the device
        CliResult text = run({QStringLiteral("show"), QStringLiteral("cli-devices")});
        QCOMPARE(text.code, 0);
        // The rank table is the block from its header to the next empty line.
        const QString out = text.out;
        const qsizetype from = out.indexOf(QStringLiteral("\nRank "));
        QVERIFY2(from >= 0, qPrintable(out));
        const QStringList rows =
            out.mid(from + 1).section(QStringLiteral("\n\n"), 0, 0).split(QLatin1Char('\n'));
        QCOMPARE(rows.size(), 3);
        QVERIFY2(rows[0].endsWith(QStringLiteral("exit       device")), qPrintable(rows[0]));
        QVERIFY2(rows[1].startsWith(QStringLiteral("  0 ")) &&
                     rows[1].endsWith(QStringLiteral(" 0          -")),
                 qPrintable(rows[1]));
        QVERIFY2(rows[2].startsWith(QStringLiteral("  1 ")) &&
                     rows[2].endsWith(QStringLiteral(" 0          cuda:1 (Scripted GPU, 8.0 GiB)")),
                 qPrintable(rows[2]));
    }

    // A job on a Slurm cluster as its runner records it: show prints both of its Slurm jobs,
    // --json carries them with their scripts, --script prints the newest script, list names the
    // pending reason.
    void showsSlurmJobs() {
        const double t0 = 1795300000;
        const std::string script = "#!/bin/bash\n#SBATCH --job-name=cli-slurm\n"
                                   "srun --ntasks-per-node=1 studio-launcher --slurm\n";
        writeSlurmJobs(t0, script);
        checkSlurmJobsJson(t0, script);
        checkSlurmJobsText(script);
        checkSlurmJobsList();
    }

    void findingsAndReport() {
        // A script whose printed loss rises: LossNotDecreasing finds it through
        // metric_definitions; findings and report show it from another process.
        const QString spec = writeSpec(
            "rising.json",
            {{"name", "cli-rising"},
             {"entry_point",
              {"/bin/sh", "-c",
               "for i in 1 2 3 4 5 6 7 8 9 10; do echo loss=0.$((40 + i)); sleep 0.05; done"}},
             {"metric_definitions", {{{"Name", "train:loss"}, {"Regex", "loss=([0-9.]+)"}}}},
             {"rules",
              {{{"name", "LossNotDecreasing"},
                {"parameters", {{"num_steps", "3"}}},
                {"actions", {"Notify"}}}}}});
        CliResult r = run({QStringLiteral("run"), spec});
        QVERIFY2(r.code == 0, qPrintable(r.err));

        auto doc = runJson(
            {QStringLiteral("findings"), QStringLiteral("cli-rising"), QStringLiteral("--json")});
        const std::string jobName = doc["job"].get<std::string>();
        QVERIFY2(jobName.rfind("cli-rising-", 0) == 0, jobName.c_str()); // base name + time
        QCOMPARE(doc["status"], "Completed");
        const nlohmann::json* loss = nullptr;
        for (const auto& rule : doc["rules"])
            if (rule["rule"] == "LossNotDecreasing")
                loss = &rule;
        QVERIFY(loss != nullptr);
        QCOMPARE((*loss)["status"], "IssuesFound");
        QVERIFY((*loss)["fired"].get<int>() >= 1);
        QVERIFY(!doc["findings"].empty());
        const auto& first = doc["findings"][0];
        QCOMPARE(first["rule"], "LossNotDecreasing");
        QVERIFY(!first["message"].get<std::string>().empty());
        QVERIFY(!first["criteria"].get<std::string>().empty());
        // Profiler rules ran under ProfilerReport too, with their own statuses.
        bool profilerRule = false;
        for (const auto& rule : doc["rules"])
            profilerRule = profilerRule || rule["rule"] == "StepOutlier";
        QVERIFY(profilerRule);

        CliResult text = run({QStringLiteral("findings"), QStringLiteral("cli-rising")});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(QStringLiteral("LossNotDecreasing")), qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("IssuesFound")));
        QVERIFY(text.out.contains(QStringLiteral("fires when: ")));

        QTemporaryDir out;
        CliResult report = run({QStringLiteral("report"), QStringLiteral("cli-rising"),
                                QStringLiteral("--out"), out.path()});
        QVERIFY2(report.code == 0, qPrintable(report.err));
        const QString html = report.out.trimmed();
        QVERIFY2(html.startsWith(out.path()), qPrintable(html));
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray page = file.readAll();
        QVERIFY(page.contains(jobName.c_str()));
        QVERIFY(page.contains("<svg"));
        QVERIFY(!page.contains("http://") && !page.contains("https://"));
        // The job wrote its own copy at the end.
        QVERIFY(QFile::exists(m_home.path() + QStringLiteral("/jobs/") +
                              QString::fromStdString(jobName) +
                              QStringLiteral("/profiler-output/profiler-report.html")));

        CliResult unknown = run({QStringLiteral("findings"), QStringLiteral("no-such-job")});
        QCOMPARE(unknown.code, 1);
    }

    void failedRunExitsOne() {
        const QString spec =
            writeSpec("fail.json", {{"name", "cli-fail"},
                                    {"entry_point", {"/bin/sh", "-c", "echo broken >&2; exit 4"}}});
        CliResult r = run({QStringLiteral("run"), spec});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("rank 0 (node 0, algo-1) exited with code 4")),
                 qPrintable(r.err));
        QVERIFY(r.err.contains(QStringLiteral("broken")));
    }

    // --job-name: the exact name SageMaker's fit(job_name=...) asks for; a bad or taken name is
    // refused before anything runs.
    void runWithJobName() {
        const QString spec = writeSpec(
            "named.json", {{"name", "cli-named"}, {"entry_point", {"/bin/sh", "-c", "echo hi"}}});
        CliResult r = run({QStringLiteral("run"), spec, QStringLiteral("--job-name"),
                           QStringLiteral("my-exact-job-7")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        auto show = runJson(
            {QStringLiteral("show"), QStringLiteral("my-exact-job-7"), QStringLiteral("--json")});
        QCOMPARE(show["name"], "my-exact-job-7");
        QCOMPARE(show["status"], "Completed");

        CliResult taken = run({QStringLiteral("run"), spec, QStringLiteral("--job-name"),
                               QStringLiteral("my-exact-job-7")});
        QCOMPARE(taken.code, 1);
        QVERIFY2(taken.err.contains(QStringLiteral("\"my-exact-job-7\" is taken")),
                 qPrintable(taken.err));
        for (const char* bad : {"-starts-with-hyphen", "has_underscore", "ends-", ""}) {
            CliResult refused = run(
                {QStringLiteral("run"), spec, QStringLiteral("--job-name"), QLatin1String(bad)});
            if (QLatin1String(bad).isEmpty()) {
                QCOMPARE(refused.code, 0); // empty: the default, timestamped name
                continue;
            }
            QCOMPARE(refused.code, 2);
            QVERIFY2(refused.err.contains(QStringLiteral("--job-name: 1 to 63 letters")),
                     qPrintable(refused.err));
        }
        const QString tooLong(64, QLatin1Char('a'));
        QCOMPARE(run({QStringLiteral("run"), spec, QStringLiteral("--job-name"), tooLong}).code, 2);
        auto jobs =
            runJson({QStringLiteral("list"), QStringLiteral("jobs"), QStringLiteral("--json")});
        int named = 0;
        for (const auto& j : jobs)
            named += j["name"].get<std::string>().rfind("cli-named-", 0) == 0 ? 1 : 0;
        QCOMPARE(named, 1); // only the run without --job-name
    }

    void stopFromAnotherProcess() {
        QProcess runner;
        start(runner, {QStringLiteral("run"), writeSpec("sleep.json", sleeper("cli-stop"))});
        // Wait until the job trains, then stop it from a second mlstudio.
        QTRY_VERIFY_WITH_TIMEOUT(run({QStringLiteral("show"), QStringLiteral("cli-stop")})
                                     .out.contains(QStringLiteral("Training")),
                                 15000);
        CliResult stop = run({QStringLiteral("stop"), QStringLiteral("cli-stop")});
        QVERIFY2(stop.code == 0, qPrintable(stop.err));
        QVERIFY(runner.waitForFinished(20000));
        QCOMPARE(runner.exitCode(), 3);
        auto show =
            runJson({QStringLiteral("show"), QStringLiteral("cli-stop"), QStringLiteral("--json")});
        QCOMPARE(show["status"], "Stopped");
        CliResult again = run({QStringLiteral("stop"), QStringLiteral("cli-stop")});
        QCOMPARE(again.code, 1);
        QVERIFY(again.err.contains(QStringLiteral("already ended")));
    }

    void ctrlCStopsGracefully() {
        QProcess runner;
        start(runner, {QStringLiteral("run"), writeSpec("sleep2.json", sleeper("cli-interrupt"))});
        QTRY_VERIFY_WITH_TIMEOUT(run({QStringLiteral("show"), QStringLiteral("cli-interrupt")})
                                     .out.contains(QStringLiteral("Training")),
                                 15000);
        ::kill(static_cast<pid_t>(runner.processId()), SIGINT);
        QVERIFY(runner.waitForFinished(20000));
        QCOMPARE(runner.exitCode(), 3);
        QVERIFY(
            QString::fromUtf8(runner.readAllStandardError()).contains(QStringLiteral("Stopping")));
        auto show = runJson(
            {QStringLiteral("show"), QStringLiteral("cli-interrupt"), QStringLiteral("--json")});
        QCOMPARE(show["status"], "Stopped");
    }

    void unknownJob() {
        CliResult r = run({QStringLiteral("show"), QStringLiteral("no-such-job")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains(QStringLiteral("no job named")));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
