// dcukit: the binary only hands off to the CLI (everything lives in dcukit_lib).
#include "cli/app.h"

int main(int argc, char** argv) { return dcukit::cli::run_app(argc, argv); }
