// Conversions between the Jupyter protocol's messages and what notebooks keep: nbformat output
// objects from IOPub messages (as nbformat's output_from_msg makes them), cursor positions in
// code points (the protocol's, since 5.2) and UTF-16 (Qt's), kernel_info's language_info, and
// the error output a dead kernel leaves on its cell. Plain functions; any thread.
#pragma once

#include "engine/jupyter/kernelspec.h"
#include "engine/jupyter/message.h"

#include <QJsonObject>
#include <QString>

namespace studio::notebook {

QJsonObject objectOf(const jupyter::Json& json);
jupyter::Json jsonOf(const QJsonObject& object);

// stream, display_data, execute_result, error and update_display_data (as display_data) messages
// as nbformat outputs; transient data is left out.
QJsonObject outputOf(const jupyter::Message& message);
// content.transient.display_id, "" when none.
QString displayIdOf(const jupyter::Message& message);
// nbformat's metadata.language_info from a kernel_info_reply's content.
QJsonObject languageInfoOf(const jupyter::Json& kernelInfo);

// The cursor position pos (UTF-16 index into code) in code points, and back.
int codePointOffset(const QString& code, int pos);
int utf16Offset(const QString& code, int codePoints);

// "The kernel died (killed by signal 9, SIGKILL)" or "(exit status 1)", and its stderr's last
// lines. exitStatus as KernelClient reports it: the exit code, or -N for signal N.
QString deathMessage(int exitStatus, const QString& stderrTail);
// The error output a cell gets when the kernel dies under it (nbclient's DeadKernelError).
QJsonObject deadKernelOutput(const QString& message);
// Python that moves the kernel to dir (a Save as elsewhere).
QString chdirCode(const QString& dir);

// A kernelspec whose argv[0] is a bare python, python3 or python3.X runs the studio's Python:
// $MLSTUDIO_PYTHON, else /usr/bin/python3 (Debian's, with ipykernel), else the name on PATH.
jupyter::KernelSpec resolveInterpreter(jupyter::KernelSpec spec);

} // namespace studio::notebook
