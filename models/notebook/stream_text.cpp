#include "models/notebook/stream_text.h"

#include "models/notebook/notebook_document.h"

namespace studio::models {

namespace {

// Removes what backspaces delete: the character before each (a surrogate pair as one), nothing
// at the line's start.
QString applyBackspaces(QStringView line) {
    QString kept;
    kept.reserve(line.size());
    for (QChar c : line) {
        if (c != u'\b') {
            kept += c;
            continue;
        }
        const qsizetype n = kept.size();
        if (n >= 2 && kept.at(n - 1).isLowSurrogate() && kept.at(n - 2).isHighSurrogate())
            kept.chop(2);
        else if (n > 0)
            kept.chop(1);
    }
    return kept;
}

// Appends one line (without its '\n') to out, backspaces and carriage returns applied. An open
// line (the text's last, not ended by '\n') keeps a final '\r' for the next chunk to act on.
void appendResolvedLine(QStringView line, bool ended, QString& out) {
    QString withBackspaces;
    if (line.contains(u'\b')) {
        withBackspaces = applyBackspaces(line);
        line = withBackspaces;
    }
    if (!line.contains(u'\r')) {
        out += line;
        return;
    }
    // Each piece after a '\r' overwrites the line from its start, as a terminal does.
    QString shown;
    for (QStringView piece : line.tokenize(u'\r', Qt::SkipEmptyParts)) {
        if (piece.size() >= shown.size())
            shown = piece.toString();
        else
            shown.replace(0, piece.size(), piece.toString());
    }
    out += shown;
    if (!ended && line.endsWith(u'\r'))
        out += u'\r';
}

QString outputType(const QJsonObject& o) {
    return o.value(QStringLiteral("output_type")).toString();
}

} // namespace

qsizetype appendResolved(QString& resolved, QStringView chunk) {
    const qsizetype from = resolved.lastIndexOf(u'\n') + 1;
    if (!resolved.endsWith(u'\r') && !chunk.contains(u'\r') && !chunk.contains(u'\b')) {
        resolved += chunk; // the common case: nothing to overwrite
        return from;
    }
    const QString work = QStringView(resolved).mid(from).toString() + chunk;
    resolved.truncate(from);
    const QStringView text(work);
    qsizetype start = 0;
    for (;;) {
        const qsizetype newline = text.indexOf(u'\n', start);
        if (newline < 0) {
            appendResolvedLine(text.mid(start), false, resolved);
            return from;
        }
        appendResolvedLine(text.mid(start, newline - start), true, resolved);
        resolved += u'\n';
        start = newline + 1;
    }
}

QString resolveOverwrites(QStringView text) {
    QString resolved;
    resolved.reserve(text.size());
    appendResolved(resolved, text);
    return resolved;
}

bool joinsStream(const QJsonObject& last, const QJsonObject& next) {
    const QString stream = QStringLiteral("stream");
    return outputType(last) == stream && outputType(next) == stream &&
           last.value(QStringLiteral("name")) == next.value(QStringLiteral("name"));
}

int appendOutputTo(QJsonArray& outputs, const QJsonObject& output) {
    const QString textKey = QStringLiteral("text");
    if (outputType(output) != QLatin1String("stream")) {
        outputs.append(output);
        return static_cast<int>(outputs.size() - 1);
    }
    const QString chunk = joinedText(output.value(textKey));
    if (!outputs.isEmpty()) {
        QJsonObject last = outputs.last().toObject();
        if (joinsStream(last, output)) {
            QString text = joinedText(last.value(textKey));
            appendResolved(text, chunk);
            last.insert(textKey, text);
            outputs.replace(outputs.size() - 1, last);
            return static_cast<int>(outputs.size() - 1);
        }
    }
    QJsonObject added = output;
    added.insert(textKey, resolveOverwrites(chunk));
    outputs.append(added);
    return static_cast<int>(outputs.size() - 1);
}

} // namespace studio::models
