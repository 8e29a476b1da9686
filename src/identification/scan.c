/*
  The cost (and optionally its gradient) on a grid of the two identified parameters, for contour plots:
  -scan_grid lo1,hi1,n1,lo2,hi2,n2 in the order of -identify. The grid points are dealt out to the ranks
  round robin and gathered by a sum in which every entry has one contribution, so the result does not
  depend on the number of ranks. A point whose forward solve fails gets NaN. The scan stands above the objective:
  it evaluates it, and writes its grid through the objective's file hook.
*/
#include "identification/identificationimpl.h"
#include <petsctime.h>
#include <math.h>

struct _p_MbsScan {
  MbsObjective obj;
  PetscInt     n[2];
  PetscReal    lo[2], hi[2];
  PetscBool    gradient;
  PetscReal   *J, *grad; /* n[1] x n[0] (x fastest), gradient x 2; NULL until run */
};

/*@C
  MbsScanCreate - Reads -scan_grid and -scan_gradient; *scan is NULL when no scan was asked for. Collective.
@*/
PetscErrorCode MbsScanCreate(MbsObjective obj, MbsScan *scan)
{
  PetscReal grid[6] = {0, 0, 0, 0, 0, 0};
  PetscInt  ngrid   = 6;
  PetscBool set, gradient = PETSC_FALSE;

  PetscFunctionBeginUser;
  *scan = NULL;
  MbsOptionsBegin(obj->comm, NULL, "Cost scan", "MbsScan");
  PetscCall(PetscOptionsRealArray("-scan_grid", "Grid lo1,hi1,n1,lo2,hi2,n2 of the two identified parameters (default: no scan)", "MbsScanRun", grid, &ngrid, &set));
  PetscCall(PetscOptionsBool("-scan_gradient", "Also the adjoint gradient at every grid point", "MbsScanRun", gradient, &gradient, NULL));
  MbsOptionsEnd();
  if (!set) PetscFunctionReturn(0);
  PetscCheck(ngrid == 6, obj->comm, PETSC_ERR_ARG_SIZ, "-scan_grid needs six values lo1,hi1,n1,lo2,hi2,n2, got %" PetscInt_FMT, ngrid);
  PetscCheck(obj->nid == 2, obj->comm, PETSC_ERR_ARG_WRONG, "-scan_grid scans two parameters; -identify names %" PetscInt_FMT, obj->nid);
  for (PetscInt d = 0; d < 2; d++)
    PetscCheck(grid[3 * d + 2] >= 2 && grid[3 * d + 2] == PetscFloorReal(grid[3 * d + 2]) && grid[3 * d + 1] > grid[3 * d], obj->comm, PETSC_ERR_ARG_OUTOFRANGE, "-scan_grid: parameter %s needs lo < hi and an integer n >= 2, got %g,%g,%g",
               obj->model->param_info[obj->id[d]].name, (double)grid[3 * d], (double)grid[3 * d + 1], (double)grid[3 * d + 2]);
  PetscCall(PetscNew(scan));
  (*scan)->obj      = obj;
  (*scan)->gradient = gradient;
  for (PetscInt d = 0; d < 2; d++) {
    (*scan)->lo[d] = grid[3 * d];
    (*scan)->hi[d] = grid[3 * d + 1];
    (*scan)->n[d]  = (PetscInt)grid[3 * d + 2];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsScanDestroy(MbsScan *scan)
{
  PetscFunctionBeginUser;
  if (!*scan) PetscFunctionReturn(0);
  PetscCall(PetscFree2((*scan)->J, (*scan)->grad));
  PetscCall(PetscFree(*scan));
  PetscFunctionReturn(0);
}

static PetscReal MbsScanCoordinate_Private(MbsScan scan, PetscInt d, PetscInt i)
{
  return scan->lo[d] + i * (scan->hi[d] - scan->lo[d]) / (scan->n[d] - 1);
}

/*@C
  MbsScanRun - Evaluates the cost on the grid of -scan_grid. Collective.
@*/
PetscErrorCode MbsScanRun(MbsScan scan)
{
  MbsObjective   obj    = scan->obj;
  PetscInt       npoint = scan->n[0] * scan->n[1], ndone = 0, mine;
  PetscMPIInt    rank, size;
  PetscReal     *x, *J_local, *g_local;
  PetscLogDouble start, last, now;
  PetscLogStage  stage;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  PetscCallMPI(MPI_Comm_size(obj->comm, &size));
  PetscCall(PetscMalloc1(obj->nid, &x));
  PetscCall(MbsObjectiveGetValues(obj, x));
  PetscCall(PetscFree2(scan->J, scan->grad));
  PetscCall(PetscMalloc2(npoint, &scan->J, 2 * npoint, &scan->grad));
  PetscCall(PetscCalloc2(npoint, &J_local, 2 * npoint, &g_local));
  PetscCall(PetscLogStageRegister("Scan", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscPrintf(obj->comm, "Scanning J on a %" PetscInt_FMT " x %" PetscInt_FMT " grid of %s x %s over %d ranks\n", scan->n[0], scan->n[1], obj->model->param_info[obj->id[0]].name, obj->model->param_info[obj->id[1]].name, size));
  PetscCall(PetscTime(&start));
  last = start;
  mine = obj->nexp > 1 ? npoint : (npoint + size - 1) / size; /* points rank 0 evaluates */
  for (PetscInt point = obj->nexp > 1 ? 0 : rank; point<npoint; point += obj->nexp> 1 ? 1 : size) {
    PetscBool ok;

    x[0] = MbsScanCoordinate_Private(scan, 0, point % scan->n[0]);
    x[1] = MbsScanCoordinate_Private(scan, 1, point / scan->n[0]);
    if (obj->nexp > 1) { /* rank 0 alone keeps the value, so that the gathering sum counts it once */
      PetscReal J, g[2];

      PetscCall(MbsObjectiveEvaluate(obj, x, &J, scan->gradient ? g : NULL, &ok));
      if (rank == 0) {
        J_local[point] = J;
        if (scan->gradient) PetscCall(PetscArraycpy(&g_local[2 * point], g, 2));
      }
    } else PetscCall(MbsObjectiveEvaluateLocal(obj, x, &J_local[point], scan->gradient ? &g_local[2 * point] : NULL, &ok));
    if (!ok && (obj->nexp == 1 || rank == 0)) J_local[point] = g_local[2 * point] = g_local[2 * point + 1] = NAN;
    ndone++;
    PetscCall(PetscTime(&now));
    if (rank == 0 && now - last > 10) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  scan: %" PetscInt_FMT " of %" PetscInt_FMT " points on rank 0, %.0f s, remaining ~%.0f s\n", ndone, mine, now - start, (now - start) / ndone * (mine - ndone)));
      last = now;
    }
  }
  PetscCall(MPIU_Allreduce(J_local, scan->J, npoint, MPIU_REAL, MPIU_SUM, obj->comm));
  PetscCall(MPIU_Allreduce(g_local, scan->grad, 2 * npoint, MPIU_REAL, MPIU_SUM, obj->comm));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&now));
  PetscCall(PetscPrintf(obj->comm, "Scan done: %" PetscInt_FMT " points in %.1f s\n", npoint, now - start));
  PetscCall(PetscFree2(J_local, g_local));
  PetscCall(PetscFree(x));
  PetscFunctionReturn(0);
}

/*@C
  MbsScanWrite - /scan/{x, y, J[, gradient]} of the scan ctx (may be NULL) when it was run: an MbsObjectiveWriteFn.
  Not collective.
@*/
PetscErrorCode MbsScanWrite(MbsObjective obj, MbsH5Writer *writer, void *ctx)
{
  MbsScan    scan = (MbsScan)ctx;
  PetscInt   dims[3];
  PetscReal *axis;

  PetscFunctionBeginUser;
  if (!scan || !scan->J) PetscFunctionReturn(0);
  dims[0] = scan->n[1];
  dims[1] = scan->n[0];
  dims[2] = 2;
  for (PetscInt d = 0; d < 2; d++) {
    const MbsParameterInfo *info = &obj->model->param_info[obj->id[d]];

    PetscCall(PetscMalloc1(scan->n[d], &axis));
    for (PetscInt i = 0; i < scan->n[d]; i++) axis[i] = MbsScanCoordinate_Private(scan, d, i);
    PetscCall(MbsH5WriteReals(writer, d ? "/scan/y" : "/scan/x", 1, &scan->n[d], axis, info->unit));
    PetscCall(MbsH5WriteAttribute(writer, d ? "/scan/y" : "/scan/x", "parameter", info->name));
    PetscCall(PetscFree(axis));
  }
  PetscCall(MbsH5WriteReals(writer, "/scan/J", 2, dims, scan->J, "cost"));
  if (scan->gradient) PetscCall(MbsH5WriteReals(writer, "/scan/gradient", 3, dims, scan->grad, "cost per parameter unit"));
  PetscFunctionReturn(0);
}
