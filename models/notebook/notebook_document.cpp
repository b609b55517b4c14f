#include "models/notebook/notebook_document.h"

#include "models/notebook/nbformat_json.h"
#include "models/notebook/stream_text.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QStringList>

namespace studio::models {

struct LoadedJson {
    QJsonObject qt;     // the value as the document held it right after reading
    nlohmann::json raw; // the file's JSON for it, numbers as written
};

namespace {

std::string u8(const QString& s) {
    return s.toStdString();
}

QString cellTypeName(CellType t) {
    switch (t) {
    case CellType::Markdown:
        return QStringLiteral("markdown");
    case CellType::Raw:
        return QStringLiteral("raw");
    case CellType::Code:
        break;
    }
    return QStringLiteral("code");
}

[[noreturn]] void fail(const QString& source, const QString& what) {
    throw NotebookError(u8(source + QStringLiteral(": ") + what));
}

QString randomId() {
    return QString::number(QRandomGenerator::global()->generate() | 0x10000000u, 16).right(8);
}

NotebookCell parseCell(const QJsonValue& v, int index, const QString& source) {
    const QString where = QStringLiteral("cell %1").arg(index + 1);
    if (!v.isObject())
        fail(source, where + QStringLiteral(" is not a JSON object"));
    QJsonObject o = v.toObject();
    NotebookCell c;
    const QString type = o.take(QStringLiteral("cell_type")).toString();
    if (type == QStringLiteral("code"))
        c.type = CellType::Code;
    else if (type == QStringLiteral("markdown"))
        c.type = CellType::Markdown;
    else if (type == QStringLiteral("raw"))
        c.type = CellType::Raw;
    else
        fail(source, where + QStringLiteral(": cell_type must be code, markdown or raw, not \"") +
                         type + QStringLiteral("\""));
    const QJsonValue src = o.take(QStringLiteral("source"));
    if (!src.isString() && !src.isArray())
        fail(source, where + QStringLiteral(": source must be a string or an array of lines"));
    c.source = joinedText(src);
    c.id = o.take(QStringLiteral("id")).toString();
    c.metadata = o.take(QStringLiteral("metadata")).toObject();
    if (c.type == CellType::Code) {
        const QJsonValue count = o.take(QStringLiteral("execution_count"));
        if (count.isDouble())
            c.executionCount = count.toInt();
        else if (!count.isNull() && !count.isUndefined())
            fail(source, where + QStringLiteral(": execution_count must be a number or null"));
        const QJsonValue outputs = o.take(QStringLiteral("outputs"));
        if (!outputs.isArray() && !outputs.isUndefined())
            fail(source, where + QStringLiteral(": outputs must be an array"));
        for (const QJsonValue& out : outputs.toArray()) {
            if (!out.isObject() || !out.toObject().contains(QStringLiteral("output_type")))
                fail(source, where + QStringLiteral(": every output needs an output_type"));
            c.outputs.append(out);
        }
    }
    c.extra = o;
    return c;
}

// A cell as an nbformat object, its strings unsplit.
QJsonObject cellObject(const NotebookCell& c) {
    QJsonObject o = c.extra;
    o.insert(QStringLiteral("cell_type"), cellTypeName(c.type));
    o.insert(QStringLiteral("id"), c.id);
    o.insert(QStringLiteral("metadata"), c.metadata);
    o.insert(QStringLiteral("source"), c.source);
    if (c.type == CellType::Code) {
        o.insert(QStringLiteral("execution_count"),
                 c.executionCount ? QJsonValue(*c.executionCount) : QJsonValue());
        QJsonArray outputs;
        for (const QJsonValue& v : c.outputs) {
            QJsonObject out = v.toObject();
            const QString type = out.value(QStringLiteral("output_type")).toString();
            // nbformat requires metadata on rich outputs.
            if ((type == QStringLiteral("display_data") ||
                 type == QStringLiteral("execute_result")) &&
                !out.contains(QStringLiteral("metadata")))
                out.insert(QStringLiteral("metadata"), QJsonObject());
            outputs.append(out);
        }
        o.insert(QStringLiteral("outputs"), outputs);
    }
    return o;
}

// The file's own JSON where the value is unchanged, else the value converted.
nlohmann::json written(const std::shared_ptr<const LoadedJson>& loaded, const QJsonObject& now) {
    if (loaded && loaded->qt == now)
        return loaded->raw;
    return fromQtJson(now);
}

} // namespace

QString joinedText(const QJsonValue& v) {
    if (v.isString())
        return v.toString();
    QString text;
    for (const QJsonValue& line : v.toArray())
        text += line.toString();
    return text;
}

NotebookDocument NotebookDocument::create() {
    NotebookDocument doc;
    doc.metadata = QJsonObject{
        {QStringLiteral("kernelspec"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("python3")},
                     {QStringLiteral("display_name"), QStringLiteral("Python 3 (ipykernel)")},
                     {QStringLiteral("language"), QStringLiteral("python")}}},
        {QStringLiteral("language_info"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("python")}}}};
    NotebookCell cell;
    cell.id = doc.newCellId();
    doc.cells.append(cell);
    return doc;
}

NotebookDocument NotebookDocument::fromJson(const QByteArray& json, const QString& sourceName) {
    const QString source = sourceName.isEmpty() ? QStringLiteral("<text>") : sourceName;
    QJsonParseError error{};
    const QJsonDocument parsed = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        fail(source, QStringLiteral("not valid JSON (%1 at byte %2)")
                         .arg(error.errorString())
                         .arg(error.offset));
    if (!parsed.isObject())
        fail(source, QStringLiteral("a notebook is a JSON object with \"cells\""));
    const QJsonObject root = parsed.object();
    const int major = root.value(QStringLiteral("nbformat")).toInt(-1);
    if (major != 4)
        fail(source,
             major < 0 ? QStringLiteral("\"nbformat\" is missing; this is not a notebook")
                       : QStringLiteral("nbformat %1 is not supported (version 4 is)").arg(major));
    if (!root.value(QStringLiteral("cells")).isArray())
        fail(source, QStringLiteral("\"cells\" must be an array"));
    NotebookDocument doc;
    doc.nbformatMinor = root.value(QStringLiteral("nbformat_minor")).toInt(5);
    doc.metadata = root.value(QStringLiteral("metadata")).toObject();
    const QJsonArray cells = root.value(QStringLiteral("cells")).toArray();
    const nlohmann::json raw = nlohmann::json::parse(json.constBegin(), json.constEnd(), nullptr,
                                                     /*allow_exceptions=*/false);
    const bool haveRaw = raw.is_object() && raw.contains("cells") && raw["cells"].is_array() &&
                         raw["cells"].size() == static_cast<std::size_t>(cells.size());
    for (int i = 0; i < cells.size(); ++i) {
        NotebookCell cell = parseCell(cells.at(i), i, source);
        if (haveRaw)
            cell.loaded = std::make_shared<const LoadedJson>(
                LoadedJson{cellObject(cell), raw["cells"][static_cast<std::size_t>(i)]});
        doc.cells.append(std::move(cell));
    }
    if (raw.is_object() && raw.contains("metadata"))
        doc.loadedMetadata =
            std::make_shared<const LoadedJson>(LoadedJson{doc.metadata, raw["metadata"]});
    for (NotebookCell& c : doc.cells)
        if (c.id.isEmpty())
            c.id = doc.newCellId();
    return doc;
}

NotebookDocument NotebookDocument::load(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        fail(path, QStringLiteral("cannot be read (%1)").arg(f.errorString()));
    return fromJson(f.readAll(), path);
}

QByteArray NotebookDocument::toJson() const {
    nlohmann::json cellArray = nlohmann::json::array();
    for (const NotebookCell& c : cells) {
        nlohmann::json cell = written(c.loaded, cellObject(c));
        splitCellLines(cell);
        cellArray.push_back(std::move(cell));
    }
    nlohmann::json root = nlohmann::json::object();
    root["cells"] = std::move(cellArray);
    root["metadata"] = written(loadedMetadata, metadata);
    root["nbformat"] = 4;
    root["nbformat_minor"] = std::max(nbformatMinor, 5);
    return nbformatJson(root) + '\n';
}

void NotebookDocument::save(const QString& path) const {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        fail(path, QStringLiteral("cannot be written (%1)").arg(f.errorString()));
    f.write(toJson());
    if (!f.commit())
        fail(path, QStringLiteral("cannot be written (%1)").arg(f.errorString()));
}

int NotebookDocument::indexOf(const QString& cellId) const {
    for (int i = 0; i < cells.size(); ++i)
        if (cells.at(i).id == cellId)
            return i;
    return -1;
}

QString NotebookDocument::newCellId() const {
    QString id;
    do
        id = randomId();
    while (indexOf(id) >= 0);
    return id;
}

int NotebookDocument::appendOutput(const QString& cellId, const QJsonObject& output,
                                   const QString& displayId) {
    const int i = indexOf(cellId);
    if (i < 0)
        return -1;
    NotebookCell& cell = cells[i];
    if (cell.clearPending) {
        cell.outputs = QJsonArray();
        cell.displayIds.clear();
        cell.clearPending = false;
    }
    while (cell.displayIds.size() < cell.outputs.size())
        cell.displayIds.append(QString());
    const qsizetype before = cell.outputs.size();
    const int index = appendOutputTo(cell.outputs, output);
    if (cell.outputs.size() > before)
        cell.displayIds.append(displayId);
    return index;
}

QVector<int> NotebookDocument::updateDisplay(const QString& displayId, const QJsonObject& output) {
    QVector<int> changed;
    if (displayId.isEmpty())
        return changed;
    for (int i = 0; i < cells.size(); ++i) {
        NotebookCell& cell = cells[i];
        bool any = false;
        for (int k = 0; k < cell.displayIds.size() && k < cell.outputs.size(); ++k) {
            if (cell.displayIds.at(k) != displayId)
                continue;
            // An update keeps the output's kind (display_data or execute_result) and count.
            QJsonObject updated = cell.outputs.at(k).toObject();
            updated.insert(QStringLiteral("data"), output.value(QStringLiteral("data")));
            updated.insert(QStringLiteral("metadata"), output.value(QStringLiteral("metadata")));
            cell.outputs.replace(k, updated);
            any = true;
        }
        if (any)
            changed.append(i);
    }
    return changed;
}

bool NotebookDocument::clearOutput(const QString& cellId, bool wait) {
    const int i = indexOf(cellId);
    if (i < 0)
        return false;
    if (wait) {
        cells[i].clearPending = true;
        return true;
    }
    cells[i].outputs = QJsonArray();
    cells[i].displayIds.clear();
    cells[i].clearPending = false;
    return true;
}

void NotebookDocument::clearOutputs() {
    for (NotebookCell& c : cells) {
        c.outputs = QJsonArray();
        c.displayIds.clear();
        c.clearPending = false;
        c.executionCount.reset();
    }
}

bool NotebookDocument::isJavaScript() const {
    const auto is = [](const QJsonValue& v) {
        return v.toString().compare(QStringLiteral("javascript"), Qt::CaseInsensitive) == 0;
    };
    return is(metadata.value(QStringLiteral("language_info"))
                  .toObject()
                  .value(QStringLiteral("name"))) ||
           is(metadata.value(QStringLiteral("kernelspec"))
                  .toObject()
                  .value(QStringLiteral("language")));
}

void NotebookDocument::setKernelMetadata(const QJsonObject& kernelspec,
                                         const QJsonObject& languageInfo) {
    if (!kernelspec.isEmpty())
        metadata.insert(QStringLiteral("kernelspec"), kernelspec);
    if (!languageInfo.isEmpty())
        metadata.insert(QStringLiteral("language_info"), languageInfo);
}

} // namespace studio::models
