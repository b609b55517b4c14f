// What the studio adds to the environment of the kernels it starts, so `import mlstudio` works
// there and talks to this studio: MLSTUDIO_CLI (this studio's own `mlstudio`), MLSTUDIO_HOME
// (its store) and, in a build run from its tree, the tree's python/ folder first on PYTHONPATH
// (an installed studio's package is in Debian's dist-packages already). Any thread.
#pragma once

#include <QMap>
#include <QString>

namespace studio::notebook {

// home: the studio home the kernel's jobs go to ("" leaves MLSTUDIO_HOME as inherited).
QMap<QString, QString> studioKernelEnvironment(const QString& home = {});

// The `mlstudio` command kernels call: $MLSTUDIO_CLI, else this program when it is mlstudio,
// else mlstudio beside it, else "mlstudio" (found on PATH).
QString studioCliPath();

} // namespace studio::notebook
