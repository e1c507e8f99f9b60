# Warnings for dcukit's own targets; DCUKIT_WERROR (the dev preset) makes them errors.
add_library(dcukit_warnings INTERFACE)
target_compile_options(dcukit_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${DCUKIT_WERROR}>>:-Werror>)
