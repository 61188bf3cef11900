// SuperLU's serial factorization and the factors as compressed columns (factor.hpp).
#include "factor.hpp"

#include <metis.h>
#include <superlu/slu_ddefs.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace sptrsv {

namespace {
// Nested dissection of A + Aᵀ (METIS_NodeND): position of each column.
std::vector<int> nested_dissection(const csc& m) {
  const auto n = static_cast<std::size_t>(m.n);
  std::vector<std::vector<idx_t>> adj(n);
  for (std::size_t c = 0; c < n; ++c)
    for (auto e = m.colptr[c]; e < m.colptr[c + 1]; ++e) {
      const auto r = static_cast<std::size_t>(m.row[static_cast<std::size_t>(e)]);
      if (r == c) continue;
      adj[r].push_back(static_cast<idx_t>(c));
      adj[c].push_back(static_cast<idx_t>(r));
    }
  std::vector<idx_t> xadj{0}, adjncy;
  for (auto& v : adj) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    adjncy.insert(adjncy.end(), v.begin(), v.end());
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t nv = static_cast<idx_t>(n);
  std::vector<idx_t> perm(n), iperm(n);
  if (METIS_NodeND(&nv, xadj.data(), adjncy.data(), nullptr, nullptr, perm.data(), iperm.data()) != METIS_OK)
    throw input_error("METIS could not order the matrix");
  return {iperm.begin(), iperm.end()};  // iperm[old] = new position: SuperLU's perm_c
}
}  // namespace

factors factor_with_superlu(const triplets& a, const std::string& order, double pivot) {
  int ispec = 2;  // MMD_AT_PLUS_A
  if (order == "natural")
    ispec = 0;
  else if (order == "colamd")
    ispec = 3;
  else if (order != "mmd" && order != "nd")
    throw input_error("unknown ordering '" + order + "' (nd, mmd, colamd or natural)");
  const csc m = compress(a);
  const auto n = static_cast<int>(m.n);
  const auto nnz = static_cast<int>(m.nnz());
  // SuperLU keeps pointers to these; they outlive A.
  std::vector<double> values(m.val);
  std::vector<int> rows(m.row.begin(), m.row.end()), cols(m.colptr.begin(), m.colptr.end());
  SuperMatrix A, AC, L, U;
  dCreate_CompCol_Matrix(&A, n, n, nnz, values.data(), rows.data(), cols.data(), SLU_NC, SLU_D, SLU_GE);
  superlu_options_t options;
  set_default_options(&options);
  options.DiagPivotThresh = pivot;
  std::vector<int> perm_c(static_cast<std::size_t>(n)), perm_r(static_cast<std::size_t>(n)), etree(static_cast<std::size_t>(n));
  const auto t0 = std::chrono::steady_clock::now();
  if (order == "nd")
    perm_c = nested_dissection(m);
  else
    get_perm_c(ispec, &A, perm_c.data());
  sp_preorder(&options, &A, perm_c.data(), etree.data(), &AC);
  SuperLUStat_t stat;
  StatInit(&stat);
  GlobalLU_t glu;
  int info = 0;
  dgstrf(&options, &AC, sp_ienv(2), sp_ienv(1), etree.data(), nullptr, 0, perm_c.data(), perm_r.data(), &L, &U, &glu, &stat, &info);
  factors out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  StatFree(&stat);
  Destroy_CompCol_Permuted(&AC);
  Destroy_SuperMatrix_Store(&A);
  if (info != 0) {
    if (info > 0 && info <= n) {
      Destroy_SuperNode_Matrix(&L);
      Destroy_CompCol_Matrix(&U);
    }
    throw input_error(info > 0 && info <= n ? "the matrix is singular: U(" + std::to_string(info) + ", " + std::to_string(info) + ") is zero"
                                            : "SuperLU ran out of memory (" + std::to_string(info) + " bytes)");
  }
  // L's supernodes hold, column by column, the rows of the supernode (U's
  // part, the diagonal included, and L's below it); U's other entries are
  // compressed columns of their own.
  triplets lt, ut;
  lt.n = ut.n = n;
  const auto* ls = static_cast<const SCformat*>(L.Store);
  const auto* lval = static_cast<const double*>(ls->nzval);
  for (int k = 0; k <= ls->nsuper; ++k) {
    const int first = ls->sup_to_col[k], istart = ls->rowind_colptr[first];
    const int nsupr = ls->rowind_colptr[first + 1] - istart;
    for (int j = first; j < ls->sup_to_col[k + 1]; ++j) {
      const int at = ls->nzval_colptr[j];
      lt.add(j, j, 1.0);
      for (int i = 0; i < nsupr; ++i) {
        const int r = ls->rowind[istart + i];
        const double v = lval[at + i];
        if (r > j)
          lt.add(r, j, v);
        else
          ut.add(r, j, v);
      }
    }
  }
  const auto* us = static_cast<const NCformat*>(U.Store);
  const auto* uval = static_cast<const double*>(us->nzval);
  for (int j = 0; j < n; ++j)
    for (int e = us->colptr[j]; e < us->colptr[j + 1]; ++e) ut.add(us->rowind[e], j, uval[e]);
  Destroy_SuperNode_Matrix(&L);
  Destroy_CompCol_Matrix(&U);
  out.perm_r = std::move(perm_r);
  out.perm_c = std::move(perm_c);
  out.l = compress(lt);
  out.u_reversed = reversed(compress(ut));
  return out;
}

}  // namespace sptrsv
