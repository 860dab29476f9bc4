/* src/common/install.h — where an installed Ember keeps its library directory.
 *
 * `meson install` lays Ember out as
 *     <prefix>/bin/ember
 *     <prefix>/<libdir>/ember/           the library directory: Ember's Python library (torch, ...)
 *                                        and its loadable engine modules (libember_gloo.so, ...)
 *     <prefix>/<libdir>/libember.a, <prefix>/<libdir>/pkgconfig/ember.pc, <prefix>/include/ember/
 * The binary finds the library directory relative to itself (the path from bindir to it is fixed
 * at configure time), so an installation that is moved, or staged with DESTDIR, still finds its
 * own library.  A build tree has none, and a host program embedding libember is not installed
 * next to it: both run the library modules embedded in the binary, which are always the ones
 * it was built with (an older installation elsewhere is never picked up). */
#ifndef EMBER_COMMON_INSTALL_H
#define EMBER_COMMON_INSTALL_H

/* The library directory, or NULL when this Ember is not installed.  Resolved once. */
const char *install_library_dir(void);

#endif
