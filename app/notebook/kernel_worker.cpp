#include "app/notebook/kernel_worker.h"

#include "app/notebook/declaration_hoist.h"
#include "app/notebook/studio_host.h"
#include "app/notebook/tuning_card.h"
#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"
#include "engine/wire/codec.h"
#include "models/notebook/notebook_document.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJSEngine>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QThread>

namespace studio::notebook {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString prelude(const QString& file) {
    QFile f(QStringLiteral(":/mlstudio/notebook/") + file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

std::int64_t stepOf(const wire::Event& e) {
    if (const auto* m = e.as<wire::MetricEvent>())
        return m->step;
    if (const auto* t = e.as<wire::TensorEvent>())
        return t->step;
    if (const auto* s = e.as<wire::StepEvent>())
        return s->step;
    return -1;
}

std::string deviceOf(const wire::Event& e) {
    if (const auto* m = e.as<wire::MetricEvent>())
        return m->name;
    if (const auto* t = e.as<wire::TensorEvent>())
        return t->name;
    if (const auto* s = e.as<wire::SysEvent>())
        return s->device;
    return e.rank >= 0 ? "rank " + std::to_string(e.rank) : std::string();
}

} // namespace

KernelWorker::KernelWorker(control::Controller& controller, control::Tuner* tuner,
                           KernelOptions options)
    : m_controller(controller)
    , m_tuner(tuner)
    , m_options(std::move(options))
    , m_refresh(this) { // a child, so it moves to the kernel thread with the worker
    m_refresh.setInterval(static_cast<int>(m_options.updateIntervalSeconds * 1000));
    connect(&m_refresh, &QTimer::timeout, this, &KernelWorker::refreshJobs);
}

KernelWorker::~KernelWorker() {
    dropCustomRules(QStringLiteral("the notebook was closed"));
}

store::StoreReader& KernelWorker::reader() {
    if (!m_reader)
        m_reader = std::make_unique<store::StoreReader>(control::databasePath(m_controller.home()));
    return *m_reader;
}

void KernelWorker::createEngine() {
    std::lock_guard lock(m_engineMutex);
    m_engine = std::make_unique<QJSEngine>();
    m_host = new StudioHost(*this, m_engine.get());
    m_engine->globalObject().setProperty(QStringLiteral("__studio_host"),
                                         m_engine->newQObject(m_host));
    for (const QString& file :
         {QStringLiteral("studio_api.js"), QStringLiteral("studio_api_tuning.js")}) {
        const QJSValue r = m_engine->evaluate(prelude(file), file);
        if (r.isError())
            qWarning("mlstudio: the notebook API (%s) failed to load: %s", qPrintable(file),
                     qPrintable(r.toString()));
    }
    m_engine->evaluate(
        QStringLiteral("delete globalThis.__studio_host; delete globalThis.__mlstudio_internals"));
}

void KernelWorker::interrupt() {
    m_interrupted = true;
    std::lock_guard lock(m_engineMutex);
    if (m_engine)
        m_engine->setInterrupted(true);
}

void KernelWorker::reset() {
    dropCustomRules(QStringLiteral("the notebook kernel restarted"));
    {
        std::lock_guard lock(m_engineMutex);
        m_engine.reset();
        m_host = nullptr;
    }
    m_executionCount = 0;
    m_interrupted = false;
    createEngine();
    Q_EMIT restarted();
}

void KernelWorker::runCell(const QString& cellId, const QString& source) {
    if (!m_engine)
        createEngine();
    m_interrupted = false;
    m_engine->setInterrupted(false);
    m_cell = cellId;
    Q_EMIT started(cellId, ++m_executionCount);

    const QJSValue result =
        m_engine->evaluate(hoistDeclarations(source), QStringLiteral("cell"), 1);
    bool ok = !result.isError() && !m_interrupted;
    if (ok) {
        const QJSValue render =
            m_engine->globalObject().property(QStringLiteral("__mlstudio_render"));
        const QJSValue bundle = render.call({result});
        if (bundle.isError()) {
            flushStream();
            sendOutput(errorOutput(bundle, source));
            ok = false;
        } else if (const QString json = bundle.toString(); !json.isEmpty()) {
            QJsonObject out = QJsonDocument::fromJson(json.toUtf8()).object();
            out.insert(QStringLiteral("output_type"), QStringLiteral("execute_result"));
            out.insert(QStringLiteral("execution_count"), m_executionCount);
            if (!out.contains(QStringLiteral("metadata")))
                out.insert(QStringLiteral("metadata"), QJsonObject());
            sendOutput(out);
        }
    } else {
        flushStream();
        if (m_interrupted) {
            sendOutput(QJsonObject{
                {QStringLiteral("output_type"), QStringLiteral("error")},
                {QStringLiteral("ename"), QStringLiteral("Interrupted")},
                {QStringLiteral("evalue"),
                 QStringLiteral("the cell was interrupted; the jobs it started go on running")},
                {QStringLiteral("traceback"),
                 QJsonArray{QStringLiteral("Interrupted: the cell was interrupted")}}});
        } else {
            sendOutput(errorOutput(result, source));
        }
    }
    flushStream();
    m_engine->setInterrupted(false);
    m_cell.clear();
    Q_EMIT finished(cellId, ok);
}

QJsonObject KernelWorker::errorOutput(const QJSValue& error, const QString& source) const {
    const QString name = error.property(QStringLiteral("name")).toString();
    QString message = error.property(QStringLiteral("message")).toString();
    if (message.isEmpty())
        message = error.toString();
    const QString field = error.property(QStringLiteral("field")).toString();
    if (!field.isEmpty() && field != QStringLiteral("undefined") && !message.contains(field))
        message += QStringLiteral(" (field ") + field + QStringLiteral(")");
    // The innermost frame in the cell: errors thrown inside the studio API point at its call.
    int line = -1;
    static const QRegularExpression frame(QStringLiteral("@(?:file:)?cell:(\\d+)$"));
    const QStringList frames =
        error.property(QStringLiteral("stack")).toString().split(QLatin1Char('\n'));
    for (const QString& f : frames) {
        const auto m = frame.match(f.trimmed());
        if (m.hasMatch()) {
            line = m.captured(1).toInt();
            break;
        }
    }
    if (line < 0 &&
        error.property(QStringLiteral("fileName")).toString().endsWith(QStringLiteral("cell")))
        line = error.property(QStringLiteral("lineNumber")).toInt();
    QJsonArray traceback{QString(name + QStringLiteral(": ") + message)};
    if (line > 0) {
        const QStringList lines = source.split(QLatin1Char('\n'));
        const QString text = line <= lines.size() ? lines.at(line - 1).trimmed() : QString();
        traceback.append(QStringLiteral("    at cell line %1: %2").arg(line).arg(text));
    }
    return QJsonObject{{QStringLiteral("output_type"), QStringLiteral("error")},
                       {QStringLiteral("ename"), name.isEmpty() ? QStringLiteral("Error") : name},
                       {QStringLiteral("evalue"),
                        line > 0 ? message + QStringLiteral(" (cell line %1)").arg(line) : message},
                       {QStringLiteral("traceback"), traceback}};
}

void KernelWorker::writeStream(const QString& name, const QString& text) {
    if (!m_streamText.isEmpty() && name != m_streamName)
        flushStream();
    m_streamName = name;
    m_streamText += text;
}

void KernelWorker::flushStream() {
    if (m_streamText.isEmpty() || m_cell.isEmpty())
        return;
    const QJsonObject out{{QStringLiteral("output_type"), QStringLiteral("stream")},
                          {QStringLiteral("name"), m_streamName},
                          {QStringLiteral("text"), m_streamText}};
    m_streamText.clear();
    Q_EMIT output(m_cell, out);
}

void KernelWorker::sendOutput(const QJsonObject& out) {
    flushStream();
    if (!m_cell.isEmpty())
        Q_EMIT output(m_cell, out);
}

bool KernelWorker::pump(double seconds) {
    QElapsedTimer clock;
    clock.start();
    const qint64 budget = static_cast<qint64>(seconds * 1000);
    flushStream();
    while (!m_interrupted && clock.elapsed() < budget) {
        QEventLoop loop;
        QTimer::singleShot(static_cast<int>(std::min<qint64>(50, budget - clock.elapsed())), &loop,
                           &QEventLoop::quit);
        loop.exec();
        flushStream();
    }
    return !m_interrupted;
}

void KernelWorker::watchJob(const QString& job) {
    m_jobs.push_back(WatchedJob{job, m_cell, QString(), false});
    if (!m_refresh.isActive())
        m_refresh.start();
}

void KernelWorker::watchTuning(const QString& tuning) {
    m_tunings.push_back(WatchedTuning{tuning, m_cell, QString(), false});
    if (!m_refresh.isActive())
        m_refresh.start();
}

QJsonObject KernelWorker::tuningDisplay(const QString& tuning) {
    const auto row = reader().tuningJob(tuning.toStdString());
    if (!row)
        return QJsonObject{
            {QStringLiteral("output_type"), QStringLiteral("display_data")},
            {QStringLiteral("data"),
             QJsonObject{{QStringLiteral("text/plain"),
                          QStringLiteral("HyperparameterTuningJob %1: Unknown").arg(tuning)}}},
            {QStringLiteral("metadata"), QJsonObject()}};
    return tuningCard(*row, reader().tuningTrainingJobs(row->id));
}

bool KernelWorker::refreshTunings() {
    bool any = false;
    for (WatchedTuning& w : m_tunings) {
        if (w.ended)
            continue;
        const auto row = reader().tuningJob(w.tuning.toStdString());
        if (!row)
            continue;
        const store::TuningCounters& c = row->counters;
        const QString state = QStringLiteral("%1/%2/%3/%4/%5/%6/%7/%8")
                                  .arg(qs(row->status))
                                  .arg(c.completed)
                                  .arg(c.inProgress)
                                  .arg(c.stopped + c.stoppedEarly)
                                  .arg(c.failed)
                                  .arg(c.total)
                                  .arg(row->bestObjective.value_or(0), 0, 'g', 17)
                                  .arg(qs(row->bestJob));
        const bool ended = !store::isLiveStatus(row->status);
        if (state != w.lastState || ended) {
            w.lastState = state;
            Q_EMIT outputUpdated(w.cellId, QStringLiteral("tuning:") + w.tuning,
                                 tuningDisplay(w.tuning));
        }
        w.ended = ended;
        any = any || !ended;
    }
    return any;
}

void KernelWorker::requestOpen(const QString& what, const QString& job) {
    Q_EMIT openRequested(what, job);
}

QJsonObject KernelWorker::jobDisplay(const QString& job) {
    const auto row = reader().component(job.toStdString());
    const QString status = row ? qs(row->status) : QStringLiteral("Unknown");
    const QString secondary = row ? qs(row->secondaryStatus) : QString();
    const control::JobProgress p = m_controller.progress(job.toStdString());
    QJsonObject info{{QStringLiteral("job"), job},
                     {QStringLiteral("status"), status},
                     {QStringLiteral("secondary_status"), secondary}};
    QString summary;
    if (row) {
        info.insert(QStringLiteral("experiment"), qs(row->experiment));
        info.insert(QStringLiteral("trial"), qs(row->trial));
        if (!row->failureReason.empty())
            info.insert(QStringLiteral("failure_reason"), qs(row->failureReason));
        QJsonObject metrics;
        for (const auto& [name, s] : reader().metricSummaries(row->id)) {
            if (s.count == 0)
                continue;
            metrics.insert(qs(name), s.last);
            if (name.find("loss") != std::string::npos && summary.isEmpty())
                summary = QStringLiteral(" · %1 %2").arg(qs(name)).arg(s.last, 0, 'g', 4);
        }
        info.insert(QStringLiteral("metrics"), metrics);
    }
    if (p.step >= 0)
        info.insert(QStringLiteral("step"), static_cast<qint64>(p.step));
    if (p.total >= 0)
        info.insert(QStringLiteral("total"), static_cast<qint64>(p.total));
    const QString plain = QStringLiteral("TrainingJob %1: %2%3%4")
                              .arg(job, status,
                                   secondary.isEmpty() || secondary == status
                                       ? QString()
                                       : QStringLiteral(" (") + secondary + QStringLiteral(")"),
                                   summary);
    const QString html =
        QStringLiteral("<div class=\"mlstudio-job\"><b>TrainingJob</b> "
                       "<a href=\"mlstudio://job/%1\"><code>%1</code></a>: <b>%2</b>%3%4</div>")
            .arg(job.toHtmlEscaped(), status.toHtmlEscaped(),
                 secondary.isEmpty() || secondary == status
                     ? QString()
                     : QStringLiteral(" (") + secondary.toHtmlEscaped() + QStringLiteral(")"),
                 summary.toHtmlEscaped());
    return QJsonObject{
        {QStringLiteral("output_type"), QStringLiteral("display_data")},
        {QStringLiteral("data"), QJsonObject{{QString::fromLatin1(models::kJobMimeType), info},
                                             {QStringLiteral("text/plain"), plain},
                                             {QStringLiteral("text/html"), html}}},
        {QStringLiteral("metadata"),
         QJsonObject{
             {QStringLiteral("mlstudio"), QJsonObject{{QStringLiteral("display_id"),
                                                       QString(QStringLiteral("job:") + job)}}}}}};
}

void KernelWorker::refreshJobs() {
    bool any = false;
    for (WatchedJob& w : m_jobs) {
        if (w.ended)
            continue;
        const auto row = reader().component(w.job.toStdString());
        if (!row)
            continue;
        const QString key = qs(row->status) + QLatin1Char('/') + qs(row->secondaryStatus);
        const bool ended = row->status != "InProgress" && row->status != "Stopping";
        if (key != w.lastStatus || ended) {
            w.lastStatus = key;
            Q_EMIT outputUpdated(w.cellId, QStringLiteral("job:") + w.job, jobDisplay(w.job));
        }
        w.ended = ended;
        any = any || !ended;
    }
    if (!refreshTunings() && !any)
        m_refresh.stop();
}

void KernelWorker::addCustomRule(const QString& job, const QString& rule, const QJSValue& fn,
                                 std::shared_ptr<debugger::ExternalRuleLink> link) {
    const QJSValue context = m_engine->evaluate(
        QStringLiteral("({state: {}, findings: [], fire(message, recommendation) {"
                       " this.findings.push(typeof message === 'object' ? message :"
                       " {message: String(message), recommendation: recommendation}); }})"));
    const int id = m_nextRuleId++;
    m_rules.emplace(id, CustomRuleState{job, rule, fn, context, link});
    link->setWakeup([this, id] {
        QMetaObject::invokeMethod(
            this, [this, id] { drainRule(id); }, Qt::QueuedConnection);
    });
}

void KernelWorker::drainRule(int id) {
    const auto it = m_rules.find(id);
    if (it == m_rules.end() || !m_engine)
        return;
    if (m_interrupted) { // an interrupted engine would fail the rule: evaluate after the cell
        QTimer::singleShot(100, this, [this, id] { drainRule(id); });
        return;
    }
    CustomRuleState& r = it->second;
    const std::deque<wire::Event> events = r.link->takeEvents();
    std::size_t evaluated = 0;
    for (const wire::Event& e : events) {
        ++evaluated;
        const QJsonDocument doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(wire::encode(e)));
        const QJSValue arg = m_engine->toScriptValue(doc.object().toVariantMap());
        QJSValue result = r.fn.call({arg, r.context});
        if (result.isError()) {
            const QJsonObject err = errorOutput(result, QString());
            r.link->fail("the custom rule's function threw " +
                         err.value(QStringLiteral("ename")).toString().toStdString() + ": " +
                         err.value(QStringLiteral("evalue")).toString().toStdString());
            break;
        }
        QJSValue findings = r.context.property(QStringLiteral("findings"));
        QList<QJSValue> raised;
        const int fired = findings.property(QStringLiteral("length")).toInt();
        for (int i = 0; i < fired; ++i)
            raised.append(findings.property(static_cast<quint32>(i)));
        r.context.setProperty(QStringLiteral("findings"), m_engine->newArray());
        if (!result.isUndefined() && !result.isNull() && !(result.isBool() && !result.toBool()))
            raised.append(result);
        for (const QJSValue& v : raised) {
            debugger::Finding f;
            f.time = e.t;
            f.step = stepOf(e);
            f.node = e.node;
            f.device = deviceOf(e);
            if (v.isObject()) {
                f.message = v.property(QStringLiteral("message")).toString().toStdString();
                if (const QJSValue rec = v.property(QStringLiteral("recommendation"));
                    !rec.isUndefined())
                    f.recommendation = rec.toString().toStdString();
                if (const QJSValue step = v.property(QStringLiteral("step")); step.isNumber())
                    f.step = static_cast<std::int64_t>(step.toNumber());
                if (const QJSValue dev = v.property(QStringLiteral("device")); dev.isString())
                    f.device = dev.toString().toStdString();
            } else {
                f.message = v.toString().toStdString();
            }
            r.link->post(std::move(f));
        }
    }
    r.link->done(evaluated);
}

void KernelWorker::dropCustomRules(const QString& why) {
    for (auto& [id, r] : m_rules)
        r.link->fail(why.toStdString());
    m_rules.clear();
}

} // namespace studio::notebook
