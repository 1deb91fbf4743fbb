import { useState } from 'preact/hooks'
import { dataOf, ok, quire, type Data } from '../api.js'
import { useRole } from '../role.js'
import { ConfirmButton, ErrorText, Notice, Title, useAction, useLoad } from '../ui.js'

type MarketplacePackage = Data<'listPackages'>[number]

/** The marketplace (super-administrators also publish there) and this environment's installations. */
export function Packages() {
  const market = useLoad(() => dataOf(quire.GET('/api/v2/packages', { params: { query: { limit: 800 } } })), [])
  const role = useRole()
  const installed = useLoad(
    () => (role.administrator ? dataOf(quire.GET('/api/v2/packages/installations')) : Promise.resolve(null)),
    [role.administrator],
  )
  const action = useAction()
  const [notice, setNotice] = useState('')
  const [form, setForm] = useState({ name: '', label: '', shortDescription: '' })
  const [versionOf, setVersionOf] = useState<Record<string, string>>({})

  const done = (message: string) => {
    setNotice(message)
    market.reload()
    installed.reload()
  }
  const createPackage = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      await ok(quire.POST('/api/v2/packages', { body: form }))
      setForm({ name: '', label: '', shortDescription: '' })
      done(`Created ${form.label}`)
    })
  }
  const addVersion = (event: Event, pkg: MarketplacePackage) => {
    event.preventDefault()
    action.run(async () => {
      const versionNumber = versionOf[pkg._id] ?? ''
      await ok(
        quire.POST('/api/v2/packages/{packageId}/versions', {
          params: { path: { packageId: pkg._id } },
          body: { versionNumber, availableOnMarketplace: true },
        }),
      )
      setVersionOf({ ...versionOf, [pkg._id]: '' })
      done(`Published ${pkg.label} ${versionNumber}`)
    })
  }
  const installedVersion = (pkg: MarketplacePackage) =>
    installed.value?.find((installation) => installation.packageId === pkg._id)?.versionNumber

  return (
    <section>
      <Title text="Packages" />
      {notice && <Notice>{notice}</Notice>}
      <ErrorText error={action.error} />
      {installed.value && <h2>Installed in this environment</h2>}
      <ErrorText error={installed.error} />
      {installed.value && (
        <div class="table-wrap">
          <table class="installations">
            <thead>
              <tr>
                <th scope="col">Package</th>
                <th scope="col">Version</th>
                <th scope="col">Latest</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {installed.value?.map((installation) => (
                <tr key={installation.packageId} data-package={installation.packageLabel}>
                  <th scope="row">{installation.packageLabel}</th>
                  <td>{installation.versionNumber}</td>
                  <td>{installation.latestVersionNumber ?? '—'}</td>
                  <td>
                    <ConfirmButton
                      label="Uninstall"
                      danger
                      question={`Uninstall ${installation.packageLabel}?`}
                      onConfirm={() =>
                        action.run(async () => {
                          await ok(
                            quire.DELETE('/api/v2/packages/installations/{packageId}', {
                              params: { path: { packageId: installation.packageId } },
                            }),
                          )
                          done(`Uninstalled ${installation.packageLabel}`)
                        })
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {installed.value?.length === 0 && <p>Nothing installed.</p>}
      <h2>Marketplace</h2>
      <ErrorText error={market.error} />
      <ul class="market">
        {market.value?.map((pkg) => (
          <li key={pkg._id} class="panel" data-package={pkg.label}>
            <h3>{pkg.label}</h3>
            <p>{pkg.shortDescription}</p>
            <ul class="versions">
              {pkg.versions.map((version) => (
                <li key={version._id}>
                  {version.versionNumber}
                  {version.availableOnMarketplace ? '' : ' (draft)'}
                  {installedVersion(pkg) === version.versionNumber
                    ? ' · installed'
                    : role.administrator && (
                        <button
                          type="button"
                          disabled={!version.availableOnMarketplace}
                          onClick={() =>
                            action.run(async () => {
                              await ok(
                                quire.POST('/api/v2/packages/installations', {
                                  body: { packageVersionId: version._id },
                                }),
                              )
                              done(`Installed ${pkg.label} ${version.versionNumber}`)
                            })
                          }
                        >
                          Install {version.versionNumber}
                        </button>
                      )}
                </li>
              ))}
            </ul>
            {role.superAdministrator && (
              <form class="inline" onSubmit={(e) => addVersion(e, pkg)}>
                <label>
                  New version of {pkg.label}
                  <input
                    name="versionNumber"
                    placeholder="1.0.0"
                    required
                    value={versionOf[pkg._id] ?? ''}
                    onInput={(e) => setVersionOf({ ...versionOf, [pkg._id]: e.currentTarget.value })}
                  />
                </label>
                <button type="submit">Publish version</button>
              </form>
            )}
          </li>
        ))}
      </ul>
      {role.superAdministrator && (
        <form class="panel" onSubmit={createPackage}>
          <h2>New package (super-administrators)</h2>
          <label>
            Name
            <input
              name="packageName"
              required
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
          </label>
          <label>
            Label
            <input
              name="packageLabel"
              required
              value={form.label}
              onInput={(e) => setForm({ ...form, label: e.currentTarget.value })}
            />
          </label>
          <label>
            Short description
            <input
              name="shortDescription"
              value={form.shortDescription}
              onInput={(e) => setForm({ ...form, shortDescription: e.currentTarget.value })}
            />
          </label>
          <button type="submit" disabled={action.busy}>
            Create package
          </button>
        </form>
      )}
    </section>
  )
}
