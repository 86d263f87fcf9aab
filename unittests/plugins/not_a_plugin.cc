// A shared library without PDLITE_PLUGIN: loading it as a plugin fails.
extern "C" int not_a_plugin_answer() { return 42; }
