// The launch dialog, for "New job" and "Clone and edit": a form over a job spec, in sections
// (job, entry point, hyperparameters, compute, spot, debugger, rules) with the generated JSON
// beside them. Every change is validated by the engine's spec parser (debounced); each problem
// shows under the field its JSON path names, and Run stays disabled while there are any.
// The dialog submits nothing: after exec() returns Accepted, the caller reads spec() (or
// parsedSpec()) and submits it to the engine.
// GUI thread only.
#pragma once

#include "engine/spec/spec_error.h"
#include "engine/spec/spec_parser.h"
#include "models/common/background_task.h"
#include "models/launch/spec_document.h"
#include "widgets/launch/cluster_choice.h"

#include <QDialog>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;

namespace studio::widgets {

class DebuggerSection;
class EntrySection;
class HyperparameterSection;
class JobSection;
class ResourcesSection;
class RulesSection;
class SpecSection;
class SpotSection;
class TuningSection;

class LaunchDialog : public QDialog {
    Q_OBJECT
public:
    explicit LaunchDialog(QWidget* parent = nullptr);
    ~LaunchDialog() override;

    // A new job's starting point: builtin:fmnist-cnn with its default hyperparameters.
    static QString newJobSpec();

    // The spec as the CLI runs it: the loaded document with the form's changes, pretty-printed;
    // with the Tuning page's switch on, the tuning document (`mlstudio tune` runs it).
    QString spec() const;
    // The job spec alone (the training job, or every tuning job's training template).
    QString jobSpec() const;
    // Loads a spec into the form. Keys the form does not show are kept and written back as
    // they were. Relative paths in it are relative to baseDir (empty: the current folder).
    // False, with the reason in error, when text is not a JSON object; the form is unchanged.
    bool setSpec(const QString& json, const QString& baseDir = {}, QString* error = nullptr);
    QString baseDir() const { return m_baseDir; }
    // Whether the Tuning page's switch is on: Run then submits tuningDocument() to the tuner.
    bool tuning() const;
    // {"tuning": the Tuning page, "training": jobSpec()}, as `mlstudio tune` reads it.
    QString tuningDocument() const;
    TuningSection* tuningSection() const { return m_tuning; }
    // jobSpec() parsed as the engine parses it (relative paths against baseDir()).
    spec::ParseResult parsedSpec() const;
    // The clusters "Run on" offers besides this machine. Once set, a spec's cluster must be one
    // of them with a host for every node (the engine checks the same when the job is submitted).
    void setClusters(std::vector<ClusterChoice> clusters);
    // Writes the spec to a file the CLI runs (`mlstudio run path`); relative paths are made
    // absolute when path lies in another folder than baseDir(). False, with the reason in error,
    // when the file cannot be written.
    bool saveSpec(const QString& path, QString* error = nullptr) const;

    // Validates now, without waiting for the debounce.
    void validateNow();
    // A change has not been validated yet.
    bool validationPending() const;
    // The problems of the last validation, as "path: message".
    QStringList problems() const;
    int problemCount() const { return int(m_problems.size()); }

    // The form's sections in order; the JSON page follows them.
    QStringList sectionTitles() const;
    void showSection(int index);
    void showJsonPage();

public Q_SLOTS:
    // Validates; accepts when the spec is valid, else shows its first problem.
    void run();
    // Asks where to save the spec, then saves it.
    void saveSpecAs();

Q_SIGNALS:
    // A validation finished with this many problems.
    void validated(int problems);

private:
    void buildSections();
    QWidget* buildSideBar();
    QWidget* buildJsonPage();
    QWidget* buildFooter();
    void scheduleValidation();
    void startValidation();
    void refreshJson(const QString& text);
    void applyProblems(std::vector<spec::SpecError> problems);
    QStringList routeProblems(QStringList& unrouted);
    void showSummary(const QStringList& sectionsWithProblems);
    void showFirstProblem();
    // The parser's problems with the spec, and its cluster's against the known clusters; for a
    // tuning document, the tuning parser's (training ones without their "training." prefix).
    // Thread-safe (validation runs it off the GUI thread).
    static std::vector<spec::SpecError>
    problemsOf(const std::string& text, const std::string& baseDir,
               const std::optional<std::vector<ClusterChoice>>& clusters, bool tuning);
    void showWhereItRuns();

    JobSection* m_job = nullptr;
    EntrySection* m_entry = nullptr;
    HyperparameterSection* m_hyperparameters = nullptr;
    ResourcesSection* m_resources = nullptr;
    SpotSection* m_spot = nullptr;
    DebuggerSection* m_debugger = nullptr;
    RulesSection* m_rules = nullptr;
    TuningSection* m_tuning = nullptr;
    std::vector<SpecSection*> m_sections;

    QListWidget* m_sectionList = nullptr;
    QStackedWidget* m_pages = nullptr;
    QPlainTextEdit* m_json = nullptr;
    QLabel* m_runsOn = nullptr;
    QLabel* m_summaryIcon = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_details = nullptr;
    QPushButton* m_saveButton = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_tuneButton = nullptr;

    models::SpecDocument m_base;
    QString m_baseDir;
    std::optional<std::vector<ClusterChoice>> m_clusters; // unset: not checked here
    QTimer m_debounce;
    models::BackgroundTask<std::vector<spec::SpecError>> m_validation;
    bool m_pending = false;
    std::vector<spec::SpecError> m_problems;
    // The field that shows each problem (nullptr: only the summary does), in m_problems order.
    std::vector<QWidget*> m_problemFields;
    std::vector<int> m_problemSections;
};

} // namespace studio::widgets
