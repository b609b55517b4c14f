// JSON text as nbformat writes notebooks: Python's json.dumps(indent=1, sort_keys=True,
// ensure_ascii=False) and a final newline, with multi-line strings split as nbformat's writer
// splits them (str.splitlines(True)), so a notebook the studio saves without changes is byte
// for byte the file Jupyter wrote. Values are nlohmann::json, which keeps 1.0 apart from 1 as
// Python does (Qt's JSON does not). Qt Core only; plain functions, any thread.
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonValue>
#include <QString>

#include <nlohmann/json.hpp>

namespace studio::models {

// value as json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) writes it.
QByteArray nbformatJson(const nlohmann::json& value);
// text with every unpaired surrogate (which Qt reads from a "\ud800" escape) as U+FFFD: UTF-8,
// and so a notebook file, cannot hold one.
QString withoutLoneSurrogates(QString text);
// A Qt JSON value as nlohmann::json (numbers without a fraction become integers, strings
// withoutLoneSurrogates).
nlohmann::json fromQtJson(const QJsonValue& value);

// Splits a cell's multi-line strings into arrays of lines where nbformat's writer does: source,
// stream text, and in rich outputs (and attachments) text/*, image/svg+xml and
// application/javascript.
void splitCellLines(nlohmann::json& cell);

// text split after each line break as Python's str.splitlines(True) splits it (\n, \r, \r\n,
// \v, \f, \x1c-\x1e, \x85, U+2028, U+2029), each piece keeping its break.
QJsonArray splitLinesKeepEnds(const QString& text);

} // namespace studio::models
