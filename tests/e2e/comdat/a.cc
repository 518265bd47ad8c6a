// SPDX-License-Identifier: MIT
// tests/e2e/comdat: two files that both instantiate the inline virtual
// D::f() and D::~D(); the linker keeps one COMDAT copy of each (see
// comdat_checks in tests/e2e/run.sh).
#include "h.h"
int first_a(int x) { return x + 1; }
Base::~Base() {}
int Base::f() { return 0; }
int use_a(int x) { Base *p = new D(x); int r = p->f(); delete p; return r; }
