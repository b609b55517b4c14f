// Running notebook cells on a JavaScript kernel in tests: a cell's outputs, success and
// execution count, and the values of the studio's MIME types among outputs.
#pragma once

#include "models/notebook/notebook_document.h"
#include "models/notebook/notebook_kernel.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>

struct CellRun {
    bool ok = false;
    int count = 0;
    QJsonArray outputs;

    QString text() const { // stream text and text/plain of every output
        QString all;
        for (const QJsonValue& v : outputs) {
            const QJsonObject o = v.toObject();
            all += studio::models::joinedText(o.value(QStringLiteral("text")));
            all += studio::models::joinedText(
                o.value(QStringLiteral("data")).toObject().value(QStringLiteral("text/plain")));
            if (o.contains(QStringLiteral("ename")))
                all += o.value(QStringLiteral("ename")).toString() + QLatin1Char(' ') +
                       o.value(QStringLiteral("evalue")).toString();
        }
        return all;
    }
    QJsonObject error() const {
        for (const QJsonValue& v : outputs)
            if (v.toObject().value(QStringLiteral("output_type")).toString() ==
                QStringLiteral("error"))
                return v.toObject();
        return {};
    }
};

// Runs source as cell id and waits for its end (or timeoutMs; then ok is false).
inline CellRun runCell(studio::models::NotebookKernel& kernel, const QString& id,
                       const QString& source, int timeoutMs) {
    using studio::models::NotebookKernel;
    CellRun r;
    bool done = false;
    QEventLoop loop;
    auto a = QObject::connect(&kernel, &NotebookKernel::started, &loop,
                              [&](const QString& cell, int count) {
                                  if (cell == id)
                                      r.count = count;
                              });
    auto b = QObject::connect(&kernel, &NotebookKernel::output, &loop,
                              [&](const QString& cell, const QJsonObject& o) {
                                  if (cell == id)
                                      r.outputs.append(o);
                              });
    auto c = QObject::connect(&kernel, &NotebookKernel::finished, &loop,
                              [&](const QString& cell, bool ok) {
                                  if (cell != id)
                                      return;
                                  r.ok = ok;
                                  done = true;
                                  loop.quit();
                              });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    kernel.execute(id, source);
    if (!done)
        loop.exec();
    QObject::disconnect(a);
    QObject::disconnect(b);
    QObject::disconnect(c);
    if (!done)
        qWarning("cell %s did not finish", qPrintable(id));
    return r;
}

// The first output's value of a MIME type, {} when none has it.
inline QJsonObject dataOf(const QJsonArray& outputs, const char* mime) {
    for (const QJsonValue& v : outputs) {
        const QJsonObject value = v.toObject()
                                      .value(QStringLiteral("data"))
                                      .toObject()
                                      .value(QLatin1String(mime))
                                      .toObject();
        if (!value.isEmpty())
            return value;
    }
    return {};
}

inline int tableColumn(const QJsonObject& table, const QString& name) {
    return table.value(QStringLiteral("columns")).toArray().toVariantList().indexOf(name);
}
