// JSON text as nbformat writes notebooks: Python's json.dumps(indent=1, sort_keys=True,
// ensure_ascii=False) and a final newline, so a notebook the studio saves without changes is
// byte for byte the file Jupyter wrote. Multi-line strings split as nbformat splits them
// (str.splitlines(True)). Qt Core only; plain functions, any thread.
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonValue>
#include <QString>

namespace studio::models {

// value as json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) writes it. Numbers
// with no fraction are written as integers (JSON in Qt keeps no int/float distinction).
QByteArray nbformatJson(const QJsonValue& value);

// text split after each line break as Python's str.splitlines(True) splits it (\n, \r, \r\n,
// \v, \f, \x1c-\x1e, \x85, U+2028, U+2029), each piece keeping its break.
QJsonArray splitLinesKeepEnds(const QString& text);

} // namespace studio::models
