# Writes the file IN as a C++ string constant SYMBOL in OUT (cmake -P script).
file(READ ${IN} _content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," _bytes "${_content}")
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\n#include <string_view>\nnamespace dcukit::generated {\nstatic const char kData[] = {${_bytes} 0};\nextern const std::string_view ${SYMBOL}(kData, sizeof(kData) - 1);\n}\n")
