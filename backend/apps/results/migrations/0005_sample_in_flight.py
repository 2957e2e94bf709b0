from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('results', '0004_verdict_looks'),
    ]

    operations = [
        migrations.AddField(
            model_name='sample',
            name='in_flight',
            field=models.IntegerField(null=True),
        ),
    ]
