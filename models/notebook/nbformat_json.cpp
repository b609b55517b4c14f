#include "models/notebook/nbformat_json.h"

#include <QJsonObject>

#include <cmath>
#include <cstdint>

namespace studio::models {

namespace {

bool isLineBreak(char16_t c) {
    return c == u'\n' || c == u'\r' || c == u'\v' || c == u'\f' || (c >= 0x1c && c <= 0x1e) ||
           c == 0x85 || c == 0x2028 || c == 0x2029;
}

// A string or an array of lines, joined; other values as they are.
nlohmann::json joined(const nlohmann::json& v) {
    if (!v.is_array())
        return v;
    std::string text;
    for (const auto& line : v) {
        if (!line.is_string())
            return v;
        text += line.get<std::string>();
    }
    return text;
}

std::string utf8(const QString& text) {
    return withoutLoneSurrogates(text).toStdString();
}

nlohmann::json splitValue(const nlohmann::json& v) {
    const nlohmann::json text = joined(v);
    if (!text.is_string())
        return v;
    const QJsonArray lines = splitLinesKeepEnds(QString::fromStdString(text.get<std::string>()));
    nlohmann::json out = nlohmann::json::array();
    for (const QJsonValue& line : lines)
        out.push_back(line.toString().toStdString());
    return out;
}

void splitBundle(nlohmann::json& bundle) {
    if (!bundle.is_object())
        return;
    for (auto it = bundle.begin(); it != bundle.end(); ++it) {
        const std::string& mime = it.key();
        if (mime.rfind("text/", 0) == 0 || mime == "image/svg+xml" ||
            mime == "application/javascript")
            it.value() = splitValue(it.value());
    }
}

} // namespace

QString withoutLoneSurrogates(QString text) {
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate())
            ++i;
        else if (c.isSurrogate())
            text[i] = QChar::ReplacementCharacter;
    }
    return text;
}

QByteArray nbformatJson(const nlohmann::json& value) {
    // nlohmann's objects are ordered maps of UTF-8 keys: byte order is code point order, as
    // Python's sort_keys; its number and escape spellings are Python's.
    return QByteArray::fromStdString(
        value.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
}

nlohmann::json fromQtJson(const QJsonValue& value) {
    // Walked, not re-parsed: Qt keeps a lone surrogate (\ud800) in a string, which JSON text
    // in UTF-8 cannot carry; it is written as U+FFFD.
    switch (value.type()) {
    case QJsonValue::Bool:
        return value.toBool();
    case QJsonValue::Double: {
        const double d = value.toDouble();
        if (d == std::trunc(d) && std::fabs(d) < 9007199254740992.0)
            return static_cast<std::int64_t>(d);
        return d;
    }
    case QJsonValue::String:
        return utf8(value.toString());
    case QJsonValue::Array: {
        nlohmann::json out = nlohmann::json::array();
        for (const QJsonValue& v : value.toArray())
            out.push_back(fromQtJson(v));
        return out;
    }
    case QJsonValue::Object: {
        nlohmann::json out = nlohmann::json::object();
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            out[utf8(it.key())] = fromQtJson(it.value());
        return out;
    }
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        break;
    }
    return nullptr;
}

void splitCellLines(nlohmann::json& cell) {
    if (!cell.is_object())
        return;
    if (cell.contains("source"))
        cell["source"] = splitValue(cell["source"]);
    if (cell.contains("attachments") && cell["attachments"].is_object())
        for (auto& bundle : cell["attachments"])
            splitBundle(bundle);
    if (!cell.contains("outputs") || !cell["outputs"].is_array())
        return;
    for (auto& output : cell["outputs"]) {
        if (!output.is_object())
            continue;
        const std::string type = output.value("output_type", "");
        if (type == "stream" && output.contains("text"))
            output["text"] = splitValue(output["text"]);
        else if ((type == "display_data" || type == "execute_result") && output.contains("data"))
            splitBundle(output["data"]);
    }
}

QJsonArray splitLinesKeepEnds(const QString& text) {
    QJsonArray lines;
    qsizetype start = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text.at(i).unicode();
        if (!isLineBreak(c))
            continue;
        if (c == u'\r' && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('\n'))
            ++i;
        lines.append(text.mid(start, i + 1 - start));
        start = i + 1;
    }
    if (start < text.size())
        lines.append(text.mid(start));
    return lines;
}

} // namespace studio::models
