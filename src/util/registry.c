/* Helpers shared by the registries (models, windows, commands). */
#include "mbsidimpl.h"

/*@C
  MbsFunctionListNames - Writes the registered names, separated by spaces, for error messages and usage lines. Not collective.
@*/
PetscErrorCode MbsFunctionListNames(PetscFunctionList list, char names[], size_t len)
{
  const char **entries;
  int          n;

  PetscFunctionBeginUser;
  names[0] = 0;
  PetscCall(PetscFunctionListGet(list, &entries, &n));
  for (int i = 0; i < n; i++) {
    if (i) PetscCall(MbsStrlcat(names, " ", len));
    PetscCall(MbsStrlcat(names, entries[i], len));
  }
  PetscCall(PetscFree(entries));
  PetscFunctionReturn(0);
}
