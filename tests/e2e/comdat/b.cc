// SPDX-License-Identifier: MIT
// tests/e2e/comdat: two files that both instantiate the inline virtual
// D::f() and D::~D(); the linker keeps one COMDAT copy of each (see
// comdat_checks in tests/e2e/run.sh).
#include "h.h"
int first_b(int x) { return x + 2; }
int use_a(int);
int main(int argc, char **) { Base *p = new D(argc); int r = p->f(); delete p; return r + use_a(argc) - 6; }
