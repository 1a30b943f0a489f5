/** How the filter engine is built, the same on the parsing thread and inline (adblock.ts). */
export const engineOptions = {
  loadCosmeticFilters: false,
  loadNetworkFilters: true,
  enableCompression: false,
} as const;
