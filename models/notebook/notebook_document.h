// A notebook file in Jupyter's format (nbformat 4): markdown, code and raw cells with their
// outputs, read and written so that Jupyter opens what the studio saves and the studio keeps
// what Jupyter wrote (unknown fields survive a round trip). Qt Core only: the studio window and
// `mlstudio nbrun` share it. A value type; not thread-safe.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>
#include <stdexcept>

namespace studio::models {

// A file that cannot be read, parsed or written; the message names the file and what is wrong
// (the JSON error's offset, the missing or mistyped field with the cell's number).
struct NotebookError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class CellType { Markdown, Code, Raw };

// The MIME type of a job output: {"job": name, "status": ..., "cell": ...}. Jupyter shows the
// text/plain and text/html twins that come with it.
inline constexpr const char* kJobMimeType = "application/vnd.mlstudio.job+json";
// The MIME type of a table's JSON twin: {"columns": [...], "rows": [[...], ...]}.
inline constexpr const char* kTableMimeType = "application/vnd.mlstudio.table+json";

struct NotebookCell {
    QString id; // nbformat 4.5 cell id; generated when a file has none
    CellType type = CellType::Code;
    QString source;
    std::optional<int> executionCount; // code cells; nullopt: not run
    QJsonArray outputs;                // nbformat outputs (code cells)
    QJsonObject metadata;
    QJsonObject extra; // fields the studio does not use (attachments, ...), kept as they were
};

class NotebookDocument {
public:
    // An empty notebook with the JavaScript kernel's metadata and one empty code cell.
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

    int indexOf(const QString& cellId) const; // -1 when absent
    // A fresh cell id (8 hex characters) unique in this document.
    QString newCellId() const;
    // Appends an output to a cell; stream text right after stream text of the same name joins
    // it, as Jupyter shows it. False when the cell does not exist.
    bool appendOutput(const QString& cellId, const QJsonObject& output);
    // Applies an output update: replaces the output whose metadata.mlstudio.display_id is
    // displayId; appends it when none has it. False when the cell does not exist.
    bool updateDisplay(const QString& cellId, const QString& displayId, const QJsonObject& output);
    // Clears every code cell's outputs and execution count.
    void clearOutputs();
    // Whether metadata.language_info.name is "javascript" (false for a Python notebook: the
    // studio shows it but its code cells do not run here).
    bool isJavaScript() const;
};

// The display id an output carries (metadata.mlstudio.display_id), "" when none.
QString displayIdOf(const QJsonObject& output);
// The text of a text field nbformat stores as a string or as an array of lines.
QString joinedText(const QJsonValue& v);

} // namespace studio::models
