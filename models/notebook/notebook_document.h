// A notebook file in Jupyter's format (nbformat 4.5): markdown, code and raw cells with their
// outputs, read and written as Jupyter writes them, so JupyterLab opens what the studio saves and
// the studio keeps what Jupyter wrote (unknown fields survive a round trip). Qt Core only: the
// studio window and `mlstudio nbrun` share it. A value type; not thread-safe.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>
#include <stdexcept>

namespace studio::models {

// A file that cannot be read, parsed or written; the message names the file and what is wrong
// (the JSON error's offset, the missing or mistyped field with the cell's number).
struct NotebookError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class CellType { Markdown, Code, Raw };

// The MIME type of a training job's live card, as the `mlstudio` Python SDK displays it:
// {"job": name, "status", "secondary_status", "experiment", "trial", "metrics": {name: last},
// "step", "total", "failure_reason"}. Jupyter shows the text/html and text/plain twins.
inline constexpr const char* kJobMimeType = "application/vnd.mlstudio.job.v1+json";
// The MIME type of a hyperparameter tuning job's live card: {"tuning": name, "status",
// "max_jobs", "done", "best_job", "best_objective", "objective": {"name", "type"},
// "jobs": [{"job", "objective", "status", "stopped_early"}]}.
inline constexpr const char* kTuningMimeType = "application/vnd.mlstudio.tuning.v1+json";

// A cell or the notebook's metadata as the file held it (notebook_document.cpp): written back
// unchanged while the value is equal, so numbers keep their spelling ("1.0").
struct LoadedJson;

struct NotebookCell {
    QString id; // nbformat 4.5 cell id; generated when a file has none
    CellType type = CellType::Code;
    QString source;
    std::optional<int> executionCount; // code cells; nullopt: not run
    QJsonArray outputs;                // nbformat outputs (code cells)
    // The Jupyter display id of each output ("" for none), parallel to outputs; never saved
    // (nbformat keeps no transient data).
    QStringList displayIds;
    // clear_output(wait=True) came: the next output clears the cell first.
    bool clearPending = false;
    QJsonObject metadata;
    QJsonObject extra; // fields the studio does not use (attachments, ...), kept as they were
    std::shared_ptr<const LoadedJson> loaded; // null for a cell not read from a file
};

class NotebookDocument {
public:
    // An empty notebook for the default Python kernel (ipykernel's kernelspec) and one empty
    // code cell.
    static NotebookDocument create();
    // Throws NotebookError; source names the file (or "<text>") in messages.
    static NotebookDocument fromJson(const QByteArray& json, const QString& source = {});
    static NotebookDocument load(const QString& path);

    // nbformat 4.5 JSON, one-space indent and sorted keys as Jupyter writes it; multi-line text
    // stored as arrays of lines.
    QByteArray toJson() const;
    // Atomic (a temporary file renamed over the old one); throws NotebookError naming the file.
    void save(const QString& path) const;

    QVector<NotebookCell> cells;
    QJsonObject metadata; // kernelspec, language_info, anything else Jupyter put there
    int nbformatMinor = 5;
    std::shared_ptr<const LoadedJson> loadedMetadata; // metadata as the file held it

    int indexOf(const QString& cellId) const; // -1 when absent
    // A fresh cell id (8 hex characters) unique in this document.
    QString newCellId() const;
    // Appends an output to a cell; stream text right after stream text of the same name joins
    // it (carriage returns and backspaces applied) as Jupyter shows it. Returns the index of the
    // output that was added or grown, -1 when the cell does not exist.
    int appendOutput(const QString& cellId, const QJsonObject& output,
                     const QString& displayId = {});
    // update_display_data: replaces every output shown with displayId, in every cell; returns
    // the indexes of the cells that changed.
    QVector<int> updateDisplay(const QString& displayId, const QJsonObject& output);
    // clear_output: now, or (wait) when the cell's next output comes. False when the cell does
    // not exist.
    bool clearOutput(const QString& cellId, bool wait);
    // Clears every code cell's outputs and execution count.
    void clearOutputs();
    // Whether the notebook was written for a JavaScript kernel (kernelspec or language_info
    // says so): the studio opens it read-only.
    bool isJavaScript() const;
    // Fills metadata.kernelspec and metadata.language_info from the kernel that runs it, as
    // JupyterLab does.
    void setKernelMetadata(const QJsonObject& kernelspec, const QJsonObject& languageInfo);
};

// The text of a text field nbformat stores as a string or as an array of lines.
QString joinedText(const QJsonValue& v);

} // namespace studio::models
