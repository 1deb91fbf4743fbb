import { dataOf, environment, quire } from '../api.js'
import { Link } from '../router.js'
import { ErrorText, Title, useLoad } from '../ui.js'

export function Home() {
  const active = useLoad(() => dataOf(quire.GET('/api/v2/usage-statistics/active-users')), [])
  return (
    <section>
      <Title text={`Environment ${environment.get()}`} />
      <dl class="figures">
        <div>
          <dt>Active users</dt>
          <dd data-testid="active-users">{active.value ? active.value.activeUsers : '…'}</dd>
        </div>
      </dl>
      <ErrorText error={active.error} />
      <ul class="cards">
        <li>
          <Link href="/definitions">Definitions and documents</Link>
        </li>
        <li>
          <Link href="/users">Users and tokens</Link>
        </li>
        <li>
          <Link href="/packages">Packages</Link>
        </li>
      </ul>
    </section>
  )
}
