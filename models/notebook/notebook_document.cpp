#include "models/notebook/notebook_document.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QStringList>

namespace studio::models {

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

// nbformat stores multi-line strings as arrays of lines, each but the last ending in "\n".
QJsonValue splitLines(const QString& text) {
    QJsonArray lines;
    qsizetype start = 0;
    while (start < text.size()) {
        const qsizetype nl = text.indexOf(QLatin1Char('\n'), start);
        if (nl < 0) {
            lines.append(text.mid(start));
            break;
        }
        lines.append(text.mid(start, nl - start + 1));
        start = nl + 1;
    }
    return lines;
}

// Outputs with their text fields (stream text, text/* data) as arrays of lines.
QJsonObject normalizedOutput(QJsonObject o) {
    if (o.value(QStringLiteral("output_type")).toString() == QStringLiteral("stream")) {
        o.insert(QStringLiteral("text"), splitLines(joinedText(o.value(QStringLiteral("text")))));
        return o;
    }
    if (o.contains(QStringLiteral("data"))) {
        QJsonObject data = o.value(QStringLiteral("data")).toObject();
        for (auto it = data.begin(); it != data.end(); ++it)
            if (it.key().startsWith(QStringLiteral("text/")))
                it.value() = splitLines(joinedText(it.value()));
        o.insert(QStringLiteral("data"), data);
        if (!o.contains(QStringLiteral("metadata")))
            o.insert(QStringLiteral("metadata"), QJsonObject());
    }
    return o;
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

} // namespace

QString joinedText(const QJsonValue& v) {
    if (v.isString())
        return v.toString();
    QString text;
    for (const QJsonValue& line : v.toArray())
        text += line.toString();
    return text;
}

QString displayIdOf(const QJsonObject& output) {
    return output.value(QStringLiteral("metadata"))
        .toObject()
        .value(QStringLiteral("mlstudio"))
        .toObject()
        .value(QStringLiteral("display_id"))
        .toString();
}

NotebookDocument NotebookDocument::create() {
    NotebookDocument doc;
    doc.metadata = QJsonObject{
        {QStringLiteral("kernelspec"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("mlstudio-javascript")},
                     {QStringLiteral("display_name"), QStringLiteral("JavaScript (ML Studio)")},
                     {QStringLiteral("language"), QStringLiteral("javascript")}}},
        {QStringLiteral("language_info"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("javascript")},
                     {QStringLiteral("file_extension"), QStringLiteral(".js")},
                     {QStringLiteral("mimetype"), QStringLiteral("application/javascript")}}}};
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
    for (int i = 0; i < cells.size(); ++i)
        doc.cells.append(parseCell(cells.at(i), i, source));
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
    QJsonArray cellArray;
    for (const NotebookCell& c : cells) {
        QJsonObject o = c.extra;
        o.insert(QStringLiteral("cell_type"), cellTypeName(c.type));
        o.insert(QStringLiteral("id"), c.id);
        o.insert(QStringLiteral("metadata"), c.metadata);
        o.insert(QStringLiteral("source"), splitLines(c.source));
        if (c.type == CellType::Code) {
            o.insert(QStringLiteral("execution_count"),
                     c.executionCount ? QJsonValue(*c.executionCount) : QJsonValue());
            QJsonArray outputs;
            for (const QJsonValue& out : c.outputs)
                outputs.append(normalizedOutput(out.toObject()));
            o.insert(QStringLiteral("outputs"), outputs);
        }
        cellArray.append(o);
    }
    const QJsonObject root{{QStringLiteral("cells"), cellArray},
                           {QStringLiteral("metadata"), metadata},
                           {QStringLiteral("nbformat"), 4},
                           {QStringLiteral("nbformat_minor"), std::max(nbformatMinor, 5)}};
    // QJsonDocument sorts keys; Jupyter indents with one space where Qt uses four.
    const QByteArray indented = QJsonDocument(root).toJson(QJsonDocument::Indented);
    QByteArray out;
    out.reserve(indented.size());
    for (const QByteArray& line : indented.split('\n')) {
        qsizetype spaces = 0;
        while (spaces < line.size() && line.at(spaces) == ' ')
            ++spaces;
        out.append(QByteArray(spaces / 4, ' '));
        out.append(line.mid(spaces));
        out.append('\n');
    }
    out.chop(1);
    return out;
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

bool NotebookDocument::appendOutput(const QString& cellId, const QJsonObject& output) {
    const int i = indexOf(cellId);
    if (i < 0)
        return false;
    QJsonArray& outputs = cells[i].outputs;
    const QString stream = QStringLiteral("stream");
    if (output.value(QStringLiteral("output_type")).toString() == stream && !outputs.isEmpty()) {
        QJsonObject last = outputs.last().toObject();
        if (last.value(QStringLiteral("output_type")).toString() == stream &&
            last.value(QStringLiteral("name")) == output.value(QStringLiteral("name"))) {
            const QString text = joinedText(last.value(QStringLiteral("text"))) +
                                 joinedText(output.value(QStringLiteral("text")));
            last.insert(QStringLiteral("text"), text);
            outputs.replace(outputs.size() - 1, last);
            return true;
        }
    }
    outputs.append(output);
    return true;
}

bool NotebookDocument::updateDisplay(const QString& cellId, const QString& displayId,
                                     const QJsonObject& output) {
    const int i = indexOf(cellId);
    if (i < 0)
        return false;
    QJsonArray& outputs = cells[i].outputs;
    for (int k = 0; k < outputs.size(); ++k) {
        if (displayIdOf(outputs.at(k).toObject()) == displayId) {
            outputs.replace(k, output);
            return true;
        }
    }
    outputs.append(output);
    return true;
}

void NotebookDocument::clearOutputs() {
    for (NotebookCell& c : cells) {
        c.outputs = QJsonArray();
        c.executionCount.reset();
    }
}

bool NotebookDocument::isJavaScript() const {
    const QString lang = metadata.value(QStringLiteral("language_info"))
                             .toObject()
                             .value(QStringLiteral("name"))
                             .toString();
    if (!lang.isEmpty())
        return lang.compare(QStringLiteral("javascript"), Qt::CaseInsensitive) == 0;
    const QString kernel = metadata.value(QStringLiteral("kernelspec"))
                               .toObject()
                               .value(QStringLiteral("language"))
                               .toString();
    return kernel.isEmpty() ||
           kernel.compare(QStringLiteral("javascript"), Qt::CaseInsensitive) == 0;
}

} // namespace studio::models
