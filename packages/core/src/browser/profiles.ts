/**
 * Browser profiles (`profile: { name, saveChanges }`): the cookies and local storage a browser
 * built up, kept in the Store per team and name, so a login made in one job is there in the
 * next. A job starts from the saved state; with `saveChanges` its state is written back after it.
 */
import type { BrowserContextOptions } from 'playwright-core';
import { ValidationError } from '../errors.ts';
import type { Store } from '../interfaces/store.ts';

/** The saved state: Playwright's storage state (cookies, and local storage per origin). */
export type ProfileState = Exclude<BrowserContextOptions['storageState'], string | undefined>;

const namespace = 'browser-profiles';

const keyOf = (team: string, name: string) =>
  `${encodeURIComponent(team)}/${encodeURIComponent(name)}`;

/** Profiles of one store, for one team. */
export class BrowserProfiles {
  readonly #store: Store;
  readonly #team: string;

  constructor(store: Store | undefined, team: string) {
    if (!store) {
      throw new ValidationError(
        'profile keeps browser state in a store, and none is configured: pass context.store (a SqliteStore, for instance)',
        { details: [{ path: ['profile'], message: 'needs a store' }] },
      );
    }
    this.#store = store;
    this.#team = team;
  }

  /** The saved state of a profile; undefined for a profile never saved. */
  load(name: string): Promise<ProfileState | undefined> {
    return this.#store.get<ProfileState>(namespace, keyOf(this.#team, name));
  }

  /** Saves a browser's cookies and local storage as the profile's state. */
  async save(name: string, state: ProfileState): Promise<void> {
    await this.#store.set(namespace, keyOf(this.#team, name), state);
  }
}
