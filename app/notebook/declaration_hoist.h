// A notebook cell's top-level declarations made global, as in a REPL: QJSEngine runs each cell as
// its own script, where top-level `let`, `const` and `class` stay private to that script. They
// become `var` (and `var X = class X`) so later cells see them and a cell can be run again.
// Nested declarations, strings, template literals, comments and regular expressions are left
// as they are.
#pragma once

#include <QString>

namespace studio::notebook {

QString hoistDeclarations(const QString& source);

} // namespace studio::notebook
