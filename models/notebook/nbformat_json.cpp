#include "models/notebook/nbformat_json.h"

#include <QJsonDocument>
#include <QJsonObject>

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

QByteArray nbformatJson(const nlohmann::json& value) {
    // nlohmann's objects are ordered maps of UTF-8 keys: byte order is code point order, as
    // Python's sort_keys; its number and escape spellings are Python's.
    return QByteArray::fromStdString(
        value.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
}

nlohmann::json fromQtJson(const QJsonValue& value) {
    const QByteArray text = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return nlohmann::json::parse(text.constBegin(), text.constEnd()).at(0);
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
