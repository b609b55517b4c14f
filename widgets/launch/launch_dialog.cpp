#include "widgets/launch/launch_dialog.h"

#include "engine/tune/tuning_parser.h"
#include "widgets/common/field_message.h"
#include "widgets/common/theme.h"
#include "widgets/launch/debugger_section.h"
#include "widgets/launch/entry_section.h"
#include "widgets/launch/hyperparameter_section.h"
#include "widgets/launch/job_section.h"
#include "widgets/launch/resources_section.h"
#include "widgets/launch/rules_section.h"
#include "widgets/launch/section_delegate.h"
#include "widgets/launch/spot_section.h"
#include "widgets/launch/tuning_section.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace studio::widgets {
namespace {

QString countOf(int n, const QString& one, const QString& many) {
    return n == 1 ? QString(QStringLiteral("1 ") + one)
                  : QString(QString::number(n) + QLatin1Char(' ') + many);
}

QString problemText(const spec::SpecError& e) {
    return QString::fromStdString(e.text());
}

// The target with the longest pattern that matches the problem's path; among equals, one whose
// field is showing (a script's command rather than the hidden model list).
std::pair<const SpecSection::ErrorTarget*, int> targetOf(const std::vector<SpecSection*>& sections,
                                                         const spec::SpecError& e) {
    const SpecSection::ErrorTarget* best = nullptr;
    int bestSection = -1;
    qsizetype bestScore = -1;
    for (std::size_t s = 0; s < sections.size(); ++s) {
        for (const auto& t : sections[s]->errorTargets()) {
            if (!models::pathMatches(t.pattern.toStdString(), e.path))
                continue;
            const bool showing = t.message->field() && t.message->field()->isVisibleTo(sections[s]);
            const qsizetype score = t.pattern.size() * 2 + (showing ? 1 : 0);
            if (score > bestScore) {
                best = &t;
                bestScore = score;
                bestSection = int(s);
            }
        }
    }
    return {best, bestSection};
}

} // namespace

LaunchDialog::LaunchDialog(QWidget* parent)
    : QDialog(parent)
    , m_validation(this) {
    setWindowTitle(tr("Create training job"));
    setObjectName(QStringLiteral("launchDialog"));
    m_baseDir = QDir::currentPath();

    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(0);

    auto* center = new QWidget;
    auto* centerLayout = new QHBoxLayout(center);
    centerLayout->setContentsMargins(0, 0, 0, 0);
    centerLayout->setSpacing(0);
    QWidget* side = buildSideBar();
    m_pages = new QStackedWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    auto* separator = new QFrame;
    separator->setFrameShape(QFrame::VLine);
    separator->setFrameShadow(QFrame::Plain);
    separator->setForegroundRole(QPalette::Mid);
    centerLayout->addWidget(side);
    centerLayout->addWidget(separator);
    centerLayout->addWidget(m_pages, 1);
    outer->addWidget(center, 1);

    buildSections();
    m_pages->addWidget(buildJsonPage());
    m_sectionList->addItem(tr("JSON"));
    connect(m_sectionList, &QListWidget::currentRowChanged, m_pages,
            &QStackedWidget::setCurrentIndex);

    auto* line = new QFrame;
    line->setFrameShape(QFrame::HLine);
    line->setFrameShadow(QFrame::Plain);
    line->setForegroundRole(QPalette::Mid);
    outer->addWidget(line);
    outer->addWidget(buildFooter());

    m_debounce.setSingleShot(true);
    m_debounce.setInterval(150);
    connect(&m_debounce, &QTimer::timeout, this, &LaunchDialog::startValidation);
    for (auto key : {Qt::Key_Return, Qt::Key_Enter})
        connect(new QShortcut(QKeySequence(Qt::CTRL | key), this), &QShortcut::activated, this,
                &LaunchDialog::run);

    resize(1060, 740);
    setSpec(newJobSpec());
    m_sectionList->setCurrentRow(0);
    // Typing starts in the job's name, the first field of the first section.
    if (auto* name = m_job->findChild<QWidget*>(QStringLiteral("jobName")))
        name->setFocus();
}

LaunchDialog::~LaunchDialog() {
    // ~QDialog hides the window, which commits open cell editors: their changes must not reach
    // this half-destroyed dialog.
    for (SpecSection* s : m_sections)
        disconnect(s, nullptr, this, nullptr);
    m_debounce.stop();
}

void LaunchDialog::buildSections() {
    m_job = new JobSection;
    m_entry = new EntrySection;
    m_hyperparameters = new HyperparameterSection;
    m_resources = new ResourcesSection;
    m_spot = new SpotSection;
    m_debugger = new DebuggerSection;
    m_rules = new RulesSection;
    m_tuning = new TuningSection;
    m_sections = {m_job,  m_entry,    m_hyperparameters, m_resources,
                  m_spot, m_debugger, m_rules,           m_tuning};
    for (SpecSection* s : m_sections) {
        m_pages->addWidget(s);
        m_sectionList->addItem(s->title());
        connect(s, &SpecSection::changed, this, &LaunchDialog::scheduleValidation);
    }
    connect(m_entry, &EntrySection::builtinModelEdited, m_hyperparameters,
            &HyperparameterSection::switchModel);
    connect(m_entry, &SpecSection::changed, this, [this] {
        m_job->setDefaultName(m_entry->defaultJobName());
        m_hyperparameters->setBuiltinModel(m_entry->builtinModel());
    });
    connect(m_resources, &SpecSection::changed, this, &LaunchDialog::showWhereItRuns);
    // The tuning page follows the job spec's hyperparameters and metrics.
    for (SpecSection* s : m_sections)
        if (s != m_tuning)
            connect(s, &SpecSection::changed, this, [this] {
                m_tuning->setJobSpec(models::SpecDocument::parse(jobSpec().toStdString()),
                                     m_entry->builtinModel());
            });
    connect(m_tuning, &TuningSection::tuningToggled, this, [this](bool on) {
        m_tuneButton->setChecked(on);
        m_runButton->setText(on ? tr("Tune") : tr("Run"));
        setWindowTitle(on ? tr("Create tuning job") : tr("Create training job"));
    });
}

bool LaunchDialog::tuning() const {
    return m_tuning->tuning();
}

QString LaunchDialog::tuningDocument() const {
    models::SpecDocument doc = models::SpecDocument::object();
    doc["tuning"] = m_tuning->tuningObject();
    doc["training"] = models::SpecDocument::parse(jobSpec().toStdString());
    return QString::fromStdString(
        doc.dump(2, ' ', false, models::SpecDocument::error_handler_t::replace));
}

QString LaunchDialog::spec() const {
    return tuning() ? tuningDocument() : jobSpec();
}

QString LaunchDialog::newJobSpec() {
    models::SpecDocument d = models::SpecDocument::object();
    d["entry_point"] = "builtin:fmnist-cnn";
    d["hyperparameters"] = HyperparameterSection::defaultsFor(QStringLiteral("fmnist-cnn"));
    const QString data = QStringLiteral("/usr/share/datasets/fashion-mnist");
    if (QFileInfo(data).isDir())
        d["inputs"]["train"] = data.toStdString();
    return QString::fromStdString(d.dump(2));
}

QString LaunchDialog::jobSpec() const {
    models::SpecDocument doc = m_base;
    for (const SpecSection* s : m_sections)
        s->save(doc);
    return QString::fromStdString(models::canonicalOrder(doc).dump(
        2, ' ', false, models::SpecDocument::error_handler_t::replace));
}

bool LaunchDialog::setSpec(const QString& json, const QString& baseDir, QString* error) {
    models::SpecDocument doc = models::SpecDocument::parse(json.toStdString(), nullptr, false);
    const bool tuningDocument = doc.is_object() && doc.contains("tuning") &&
                                doc.contains("training") && doc["training"].is_object();
    if (tuningDocument) // {"tuning": ..., "training": the job spec}
        m_tuning->setTuningObject(doc["tuning"]);
    if (tuningDocument)
        doc = models::SpecDocument(doc["training"]);
    if (doc.is_discarded() || !doc.is_object()) {
        if (error)
            *error = doc.is_discarded() ? tr("The spec is not valid JSON.")
                                        : tr("A spec is a JSON object.");
        return false;
    }
    m_base = std::move(doc);
    m_baseDir = baseDir.isEmpty() ? QDir::currentPath() : QDir(baseDir).absolutePath();
    for (SpecSection* s : m_sections)
        s->load(m_base);
    m_job->setDefaultName(m_entry->defaultJobName());
    m_hyperparameters->setBuiltinModel(m_entry->builtinModel());
    m_tuning->setJobSpec(models::SpecDocument::parse(jobSpec().toStdString()),
                         m_entry->builtinModel());
    showWhereItRuns();
    refreshJson(spec());
    scheduleValidation();
    return true;
}

void LaunchDialog::setClusters(std::vector<ClusterChoice> clusters) {
    m_resources->setClusters(clusters);
    m_clusters = std::move(clusters);
    showWhereItRuns();
    scheduleValidation();
}

void LaunchDialog::showWhereItRuns() {
    const QString cluster = m_resources->cluster();
    m_runsOn->setText(cluster == QLatin1String("local") ? tr("Runs on this machine")
                                                        : tr("Runs on cluster %1").arg(cluster));
}

std::vector<spec::SpecError>
LaunchDialog::problemsOf(const std::string& text, const std::string& baseDir,
                         const std::optional<std::vector<ClusterChoice>>& clusters, bool tuning) {
    if (tuning) { // the training spec's problems go to its fields, without "training."
        std::vector<spec::SpecError> problems = tune::parseTuningSpecText(text, baseDir).errors;
        for (auto& e : problems)
            if (e.path.rfind("training.", 0) == 0)
                e.path.erase(0, 9);
        return problems;
    }
    std::vector<spec::SpecError> problems = spec::parseSpecText(text, baseDir).errors;
    const bool clusterNamed = std::any_of(problems.begin(), problems.end(),
                                          [](const auto& e) { return e.path == "cluster"; });
    if (clusters && !clusterNamed)
        for (auto& e :
             clusterProblems(models::SpecDocument::parse(text, nullptr, false), *clusters))
            problems.push_back(std::move(e));
    return problems;
}

spec::ParseResult LaunchDialog::parsedSpec() const {
    return spec::parseSpecText(jobSpec().toStdString(), m_baseDir.toStdString());
}

bool LaunchDialog::saveSpec(const QString& path, QString* error) const {
    const QString dir = QFileInfo(path).absolutePath();
    models::SpecDocument doc = models::SpecDocument::parse(spec().toStdString(), nullptr, false);
    doc = models::rebasedSpec(doc, m_baseDir, dir);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(QByteArray::fromStdString(doc.dump(2) + "\n"));
    if (!file.commit()) {
        if (error)
            *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

void LaunchDialog::saveSpecAs() {
    const models::SpecDocument doc =
        models::SpecDocument::parse(jobSpec().toStdString(), nullptr, false);
    QString name = models::valueText(models::valueAt(doc, "/name"));
    if (name.isEmpty())
        name = m_entry->defaultJobName();
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save spec"), QDir(m_baseDir).filePath(name + QStringLiteral(".json")),
        tr("Job specs (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveSpec(path, &error))
        QMessageBox::warning(this, tr("Save spec"), error);
}

void LaunchDialog::run() {
    validateNow();
    if (!m_problems.empty()) {
        showFirstProblem();
        return;
    }
    accept();
}

void LaunchDialog::scheduleValidation() {
    m_pending = true;
    m_debounce.start();
}

void LaunchDialog::startValidation() {
    const QString text = spec();
    refreshJson(text);
    m_pending = true;
    m_validation.run(
        [text = text.toStdString(), base = m_baseDir.toStdString(), clusters = m_clusters,
         tuning = tuning()](const models::CancelFlag&) {
            return problemsOf(text, base, clusters, tuning);
        },
        [this](std::vector<spec::SpecError> problems) { applyProblems(std::move(problems)); });
}

void LaunchDialog::validateNow() {
    m_debounce.stop();
    m_validation.cancel();
    const QString text = spec();
    refreshJson(text);
    applyProblems(problemsOf(text.toStdString(), m_baseDir.toStdString(), m_clusters, tuning()));
}

bool LaunchDialog::validationPending() const {
    return m_pending;
}

QStringList LaunchDialog::problems() const {
    QStringList out;
    for (const auto& e : m_problems)
        out << problemText(e);
    return out;
}

QStringList LaunchDialog::sectionTitles() const {
    QStringList out;
    for (const SpecSection* s : m_sections)
        out << s->title();
    return out;
}

void LaunchDialog::showSection(int index) {
    m_sectionList->setCurrentRow(index);
}

void LaunchDialog::showJsonPage() {
    m_sectionList->setCurrentRow(int(m_sections.size()));
}

void LaunchDialog::refreshJson(const QString& text) {
    if (m_json->toPlainText() == text)
        return;
    const int scroll = m_json->verticalScrollBar()->value();
    m_json->setPlainText(text);
    m_json->verticalScrollBar()->setValue(scroll);
}

void LaunchDialog::applyProblems(std::vector<spec::SpecError> problems) {
    m_pending = m_debounce.isActive();
    m_problems = std::move(problems);
    QStringList unrouted;
    const QStringList sectionsWithProblems = routeProblems(unrouted);
    const int n = int(m_problems.size());
    m_runButton->setEnabled(n == 0);
    showSummary(sectionsWithProblems);
    m_details->setText(unrouted.join(QLatin1Char('\n')));
    m_details->setVisible(!unrouted.isEmpty());
    m_sectionList->viewport()->update();
    Q_EMIT validated(n);
}

// Shows each problem at its field and counts them per section; returns the titles of the
// sections with problems, and puts the texts of those no field takes in unrouted.
QStringList LaunchDialog::routeProblems(QStringList& unrouted) {
    m_problemFields.assign(m_problems.size(), nullptr);
    m_problemSections.assign(m_problems.size(), -1);
    QHash<FieldMessage*, QStringList> byMessage;
    std::vector<std::vector<spec::SpecError>> bySection(m_sections.size());
    for (std::size_t i = 0; i < m_problems.size(); ++i) {
        const spec::SpecError& e = m_problems[i];
        const auto [best, bestSection] = targetOf(m_sections, e);
        if (!best) {
            unrouted << problemText(e);
            continue;
        }
        byMessage[best->message] << SpecSection::describe(*best, e);
        bySection[std::size_t(bestSection)].push_back(e);
        m_problemFields[i] = best->message->field();
        m_problemSections[i] = bestSection;
    }
    QStringList sectionsWithProblems;
    for (std::size_t s = 0; s < m_sections.size(); ++s) {
        for (const auto& t : m_sections[s]->errorTargets())
            t.message->setProblems(byMessage.value(t.message));
        m_sections[s]->showProblems(bySection[s]);
        const int count = int(bySection[s].size());
        m_sectionList->item(int(s))->setData(kProblemCountRole, count);
        if (count > 0)
            sectionsWithProblems << m_sections[s]->title();
    }
    return sectionsWithProblems;
}

// "Ready to run · builtin:fmnist-cnn on 4 ranks", or how many problems there are and where.
void LaunchDialog::showSummary(const QStringList& sectionsWithProblems) {
    const int n = int(m_problems.size());
    const QString status = n == 0 ? QStringLiteral("Completed") : QStringLiteral("Failed");
    m_summaryIcon->setPixmap(models::statusIcon(status).pixmap(18, 18));
    if (n == 0) {
        const QString model = m_entry->builtinModel();
        const QString what =
            model.isEmpty() ? tr("your script") : QStringLiteral("builtin:") + model;
        const QString cluster = m_resources->cluster();
        const QString where = cluster == QLatin1String("local")
                                  ? QString()
                                  : tr(" of cluster %1").arg(cluster.toHtmlEscaped());
        m_summary->setText(tr("<b>Ready to run</b> &nbsp;·&nbsp; %1 on %2%3")
                               .arg(what.toHtmlEscaped(),
                                    countOf(m_resources->worldSize(), tr("rank"), tr("ranks")),
                                    where));
        return;
    }
    QString where;
    if (!sectionsWithProblems.isEmpty())
        where = tr(" in %1").arg(sectionsWithProblems.join(QStringLiteral(", ")));
    m_summary->setText(QStringLiteral("<b style=\"color:%1\">%2</b>%3 &nbsp;·&nbsp; "
                                      "<a href=\"#first\">%4</a>")
                           .arg(models::statusColor(QStringLiteral("Failed")).name(),
                                countOf(n, tr("problem"), tr("problems")), where.toHtmlEscaped(),
                                tr("Show the first")));
}

void LaunchDialog::showFirstProblem() {
    if (m_problems.empty())
        return;
    const int section = m_problemSections.front();
    if (section < 0) {
        showJsonPage();
        return;
    }
    showSection(section);
    if (QWidget* field = m_problemFields.front()) {
        for (QWidget* w = field->parentWidget(); w; w = w->parentWidget())
            if (auto* scroll = qobject_cast<QScrollArea*>(w)) {
                scroll->ensureWidgetVisible(field);
                break;
            }
        field->setFocus(Qt::OtherFocusReason);
    }
}

} // namespace studio::widgets
