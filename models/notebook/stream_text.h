// Stream outputs (stdout, stderr) as Jupyter frontends keep them: carriage returns and
// backspaces applied to the text, so a progress bar that rewrites its line keeps only its last
// state, and consecutive stream outputs of the same name joined into one output. The notebook
// document (what is saved) and the notebook's output views (what is shown) both use these
// functions, so they agree. Qt Core only; plain functions, any thread.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringView>

namespace studio::models {

// The text with backspaces and carriage returns applied as JupyterLab's output model applies
// them: a backspace deletes the character before it on its line (none at a line's start), `\r\n`
// is a newline, and text after a `\r` overwrites its line from the start, keeping the old line's
// longer tail. A `\r` that ends the text stays, so the next chunk overwrites that line. Resolving
// resolved text changes nothing.
QString resolveOverwrites(QStringView text);

// Appends chunk to resolved text (resolveOverwrites's result), resolving it. Only the last line
// of `resolved` can change, so this costs the length of that line and of the chunk, not of the
// whole text. Returns where the text changed from: the start of the old last line.
qsizetype appendResolved(QString& resolved, QStringView chunk);

// Whether `next` joins `last` as Jupyter joins outputs: both are streams of the same name.
bool joinsStream(const QJsonObject& last, const QJsonObject& next);

// Adds an output to a cell's outputs as Jupyter does: a stream joins the last output when
// joinsStream(), else it is appended with its text resolved; any other output is appended as it
// is. Returns the index of the output that was added or grown.
int appendOutputTo(QJsonArray& outputs, const QJsonObject& output);

} // namespace studio::models
