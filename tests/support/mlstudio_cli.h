// The mlstudio command line as users run it, against a studio home of the test's own
// (MLSTUDIO_HOME). Runs are bounded: one that outlives its timeout is killed.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

struct CliResult {
    int code = -1;
    QString out;
    QString err;
};

class MlstudioCli {
public:
    explicit MlstudioCli(QString home)
        : m_home(std::move(home)) {}

    QProcessEnvironment env() const {
        auto e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("MLSTUDIO_HOME"), m_home);
        return e;
    }

    // Starts mlstudio with args in p; false when it could not start.
    bool start(QProcess& p, const QStringList& args) const {
        p.setProcessEnvironment(env());
        p.start(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"), args);
        return p.waitForStarted();
    }

    CliResult run(const QStringList& args, int timeoutMs = 60000) const {
        QProcess p;
        start(p, args);
        if (!p.waitForFinished(timeoutMs))
            p.kill();
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    // `show --json JOB`; a discarded value (is_discarded()) when it printed no JSON.
    nlohmann::json show(const QString& job) const {
        const CliResult r = run({QStringLiteral("show"), QStringLiteral("--json"), job});
        return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    }

private:
    QString m_home;
};
