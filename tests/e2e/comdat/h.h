// SPDX-License-Identifier: MIT
// tests/e2e/comdat: two files that both instantiate the inline virtual
// D::f() and D::~D(); the linker keeps one COMDAT copy of each (see
// comdat_checks in tests/e2e/run.sh).
struct Base { virtual ~Base(); virtual int f(); };
struct D : Base { int v; D(int x) : v(x) {} ~D() override {} int f() override { return v * 3; } };
