import { changesSince, operations, runMutation, runQuery } from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'

describe('tags', () => {
  it('creates a Tag object and lists tags as a bare array, alphabetical ignoring case', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const id = ulid()
    const { result } = await runMutation(
      store.db,
      operations.tags.create,
      { id, name: 'Vacation', color: '#FFAA00' },
      ctx,
    )
    expect(result).toEqual({
      id,
      name: 'Vacation',
      color: '#ffaa00',
      createdAt: ctx.now.toISOString(),
      updatedAt: ctx.now.toISOString(),
    })
    await runMutation(store.db, operations.tags.create, { id: ulid(), name: 'business' }, ctx)
    const tags = await runQuery(store.db, operations.tags.list, {}, ctx)
    expect(Array.isArray(tags)).toBe(true)
    expect(tags.map((t) => [t.name, t.color])).toEqual([
      ['business', null],
      ['Vacation', '#ffaa00'],
    ])
    expect(await runQuery(store.db, operations.tags.get, { id }, ctx)).toEqual(result)
  })

  it('refuses an id in use with 409 ID_ALREADY_EXISTS, before it looks at the name', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = ulid()
    await runMutation(store.db, operations.tags.create, { id: a, name: 'Kids' }, ctx)
    await runMutation(store.db, operations.tags.create, { id: ulid(), name: 'Pets' }, ctx)
    for (const name of ['Kids', 'Pets', 'Garden']) {
      await expect(runMutation(store.db, operations.tags.create, { id: a, name }, ctx)).rejects.toMatchObject(
        {
          status: 409,
          code: 'ID_ALREADY_EXISTS',
          extra: { id: a },
        },
      )
    }
  })

  it('refuses a duplicate name in any case with 409 TAG_NAME_TAKEN, on create and on rename', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const a = ulid()
    const b = ulid()
    await runMutation(store.db, operations.tags.create, { id: a, name: 'Kids' }, ctx)
    await runMutation(store.db, operations.tags.create, { id: b, name: 'Pets' }, ctx)
    await expect(
      runMutation(store.db, operations.tags.create, { id: ulid(), name: 'KIDS' }, ctx),
    ).rejects.toMatchObject({
      status: 409,
      code: 'TAG_NAME_TAKEN',
      extra: { tagId: a },
    })
    await expect(
      runMutation(store.db, operations.tags.update, { id: b, name: 'kids' }, ctx),
    ).rejects.toMatchObject({
      status: 409,
      code: 'TAG_NAME_TAKEN',
    })
    const other = await newHousehold(store)
    await runMutation(store.db, operations.tags.create, { id: ulid(), name: 'Kids' }, other)
  })

  it('renames, recolours and clears the colour', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const id = ulid()
    await runMutation(store.db, operations.tags.create, { id, name: 'trip', color: '#000000' }, ctx)
    const { result } = await runMutation(store.db, operations.tags.update, { id, name: 'Trip' }, ctx)
    expect(result).toMatchObject({ name: 'Trip', color: '#000000' })
    const { result: plain } = await runMutation(store.db, operations.tags.update, { id, color: null }, ctx)
    expect(plain.color).toBeNull()
  })

  it('refuses a colour that is not #rrggbb', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await expect(
      runMutation(store.db, operations.tags.create, { id: ulid(), name: 'x', color: 'red' }, ctx),
    ).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ path: 'color' })] })
  })

  it('deletes a tag for good, logs the delete, and answers 404 afterwards', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const id = ulid()
    await runMutation(store.db, operations.tags.create, { id, name: 'Temp' }, ctx)
    const { version } = await runMutation(store.db, operations.tags.delete, { id }, ctx)
    expect(await store.db.selectFrom('tags').select('id').where('id', '=', id).execute()).toEqual([])
    expect(await changesSince(store.db, ctx.householdId, (version ?? 1) - 1)).toEqual([
      expect.objectContaining({ table: 'tags', id, op: 'delete' }),
    ])
    await expect(runMutation(store.db, operations.tags.delete, { id }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    await expect(runMutation(store.db, operations.tags.update, { id, name: 'x' }, ctx)).rejects.toMatchObject(
      {
        status: 404,
      },
    )
    const { result } = await runMutation(store.db, operations.tags.create, { id: ulid(), name: 'temp' }, ctx)
    expect(result.name).toBe('temp')
  })

  it('answers 404 for a tag of another household and needs the tag scopes', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const other = await newHousehold(store)
    const theirs = ulid()
    await runMutation(store.db, operations.tags.create, { id: theirs, name: 'Theirs' }, other)
    await expect(runMutation(store.db, operations.tags.delete, { id: theirs }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    await expect(runQuery(store.db, operations.tags.get, { id: theirs }, ctx)).rejects.toMatchObject({
      status: 404,
    })
    await expect(
      runMutation(
        store.db,
        operations.tags.create,
        { id: ulid(), name: 'x' },
        { ...ctx, scopes: ['read:tags'] },
      ),
    ).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' })
    await expect(
      runQuery(store.db, operations.tags.list, {}, { ...ctx, scopes: ['write:tags'] }),
    ).rejects.toMatchObject({
      status: 403,
    })
  })
})
